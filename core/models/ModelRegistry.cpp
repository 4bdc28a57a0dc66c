#include "core/models/ModelRegistry.h"

#include <algorithm>

#include "core/common/Error.h"
#include "core/models/Cnn.h"
#include "core/models/LeNet.h"
#include "core/models/ResNet18.h"

namespace ensemble {

const std::vector<std::string>& modelNames() {
  static const std::vector<std::string> names{"cnn", "lenet", "resnet18"};
  return names;
}

std::string modelName(ModelKind model) {
  switch (model) {
    case ModelKind::Cnn: return "cnn";
    case ModelKind::LeNet: return "lenet";
    case ModelKind::ResNet18: return "resnet18";
  }
  return "cnn";
}

ModelKind parseModel(const std::string& name) {
  if (name == "cnn") return ModelKind::Cnn;
  if (name == "lenet") return ModelKind::LeNet;
  if (name == "resnet18") return ModelKind::ResNet18;
  throw ConfigError("unknown model '" + name + "'; choose cnn, lenet or resnet18", "model");
}

bool isKnownModel(const std::string& name) {
  const auto& names = modelNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::shared_ptr<ClassifierImpl> makeModel(const std::string& name, const ModelInput& input) {
  if (name == "cnn") return std::make_shared<CnnImpl>(input);
  if (name == "lenet") return std::make_shared<LeNetImpl>(input);
  if (name == "resnet18") return std::make_shared<ResNet18Impl>(input);
  throw ConfigError("unknown model '" + name + "'; choose cnn, lenet or resnet18");
}

}  // namespace ensemble
