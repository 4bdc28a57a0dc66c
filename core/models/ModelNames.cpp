// SPDX-License-Identifier: GPL-3.0-or-later
// The models' names (ModelRegistry.h), torch-free: configs are read and checked, and the
// CLI's help and completions written, without LibTorch (core/CMakeLists.txt's ensemble_settings).
#include "core/models/ModelRegistry.h"

#include "core/common/EnumNames.h"
#include "core/common/Error.h"

namespace ensemble {

namespace {

constexpr EnumName<ModelKind> kModelNames[] = {
    {ModelKind::Cnn, "cnn"}, {ModelKind::LeNet, "lenet"}, {ModelKind::ResNet18, "resnet18"}};

}  // namespace

std::string modelName(ModelKind model) { return nameOf(kModelNames, model); }

std::string classifierHeadWeight(ModelKind model) {
  switch (model) {
    case ModelKind::Cnn: return "dense2.weight";      // Cnn.cpp
    case ModelKind::LeNet: return "fc3.weight";       // LeNet.cpp
    case ModelKind::ResNet18: return "fc.weight";     // ResNet18.cpp
  }
  return {};
}

const std::vector<std::string>& modelNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const auto& entry : kModelNames) list.push_back(entry.name);
    return list;
  }();
  return names;
}

ModelKind parseModel(const std::string& name) {
  if (const auto model = valueNamed(kModelNames, name)) return *model;
  throw ConfigError("unknown model '" + name + "'; choose " + choicesOf(kModelNames), "model");
}

}  // namespace ensemble
