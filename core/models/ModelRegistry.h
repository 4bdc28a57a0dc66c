#pragma once
// Models by name. The names are torch-free so configs can be validated without LibTorch.
#include <memory>
#include <string>
#include <vector>

namespace ensemble {

class ClassifierImpl;
struct ModelInput;

/// The names `makeModel` accepts, in the order the UI lists them.
const std::vector<std::string>& modelNames();

/// True when `name` is one of modelNames().
bool isKnownModel(const std::string& name);

/// A freshly initialised model (from torch's global generator: seed it first).
/// Throws ConfigError for an unknown name or an input the model cannot take.
std::shared_ptr<ClassifierImpl> makeModel(const std::string& name, const ModelInput& input);

}  // namespace ensemble
