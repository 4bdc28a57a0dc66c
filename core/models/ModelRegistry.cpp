// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ModelRegistry.h"

#include "core/common/Error.h"
#include "core/models/Cnn.h"
#include "core/models/LeNet.h"
#include "core/models/ResNet18.h"

namespace ensemble {

std::shared_ptr<ClassifierImpl> makeModel(const std::string& name, const ModelInput& input) {
  switch (parseModel(name)) {
    case ModelKind::Cnn: return std::make_shared<CnnImpl>(input);
    case ModelKind::LeNet: return std::make_shared<LeNetImpl>(input);
    case ModelKind::ResNet18: return std::make_shared<ResNet18Impl>(input);
  }
  throw ConfigError("model '" + name + "' has a name but no code to make it (core/models/ModelRegistry.cpp)", "model");
}

}  // namespace ensemble
