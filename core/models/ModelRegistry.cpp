// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ModelRegistry.h"

#include "core/common/Error.h"
#include "core/models/Cnn.h"
#include "core/models/LeNet.h"
#include "core/models/ResNet18.h"

namespace ensemble {

namespace {

constexpr ModelKind kModels[] = {ModelKind::Cnn, ModelKind::LeNet, ModelKind::ResNet18};

}  // namespace

std::string modelName(ModelKind model) {
  switch (model) {
    case ModelKind::Cnn: return "cnn";
    case ModelKind::LeNet: return "lenet";
    case ModelKind::ResNet18: return "resnet18";
  }
  return "cnn";
}

const std::vector<std::string>& modelNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const ModelKind model : kModels) list.push_back(modelName(model));
    return list;
  }();
  return names;
}

ModelKind parseModel(const std::string& name) {
  for (const ModelKind model : kModels) {
    if (modelName(model) == name) return model;
  }
  throw ConfigError("unknown model '" + name + "'; choose cnn, lenet or resnet18", "model");
}

std::shared_ptr<ClassifierImpl> makeModel(const std::string& name, const ModelInput& input) {
  switch (parseModel(name)) {
    case ModelKind::Cnn: return std::make_shared<CnnImpl>(input);
    case ModelKind::LeNet: return std::make_shared<LeNetImpl>(input);
    case ModelKind::ResNet18: return std::make_shared<ResNet18Impl>(input);
  }
  throw ConfigError("unknown model '" + name + "'; choose cnn, lenet or resnet18", "model");
}

}  // namespace ensemble
