// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Models by name. The names (ModelNames.cpp) are torch-free, so configs are validated
// without LibTorch; makeModel (ModelRegistry.cpp) builds them.
#include <memory>
#include <string>
#include <vector>

namespace ensemble {

class ClassifierImpl;
struct ModelInput;

/// The models a run can train (a config's "model").
enum class ModelKind { Cnn, LeNet, ResNet18 };
/// "cnn", "lenet" or "resnet18": what makeModel, config.json and --model take.
std::string modelName(ModelKind model);
/// Inverse of modelName; throws ConfigError naming the choices.
ModelKind parseModel(const std::string& name);

/// The key of the model's last layer's weight in its state_dict, [classes, features]: how a
/// checkpoint says how many classes its models tell apart (the Python package reads the same).
std::string classifierHeadWeight(ModelKind model);

/// The names `makeModel` accepts, in the order the UI lists them.
const std::vector<std::string>& modelNames();

/// A freshly initialised model (from torch's global generator: seed it first).
/// Throws ConfigError for an unknown name or an input the model cannot take.
std::shared_ptr<ClassifierImpl> makeModel(const std::string& name, const ModelInput& input);

}  // namespace ensemble
