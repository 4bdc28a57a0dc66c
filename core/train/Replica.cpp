// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Replica.h"

#include <torch/torch.h>

#include <algorithm>
#include <mutex>
#include <vector>

#include "core/common/Error.h"
#include "core/common/SeedSequence.h"
#include "core/models/ModelRegistry.h"

namespace ensemble {
namespace {

void restore(const torch::OrderedDict<std::string, torch::Tensor>& targets,
             const TensorDict& source, const std::string& what, const std::string& origin) {
  torch::NoGradGuard noGrad;
  for (const auto& item : targets) {
    if (!source.contains(item.key())) {
      throw CheckpointError(origin + " has no " + what + " '" + item.key() +
                            "'; it was written for a different model");
    }
    const torch::Tensor& saved = source.at(item.key());
    if (!saved.sizes().equals(item.value().sizes())) {
      throw CheckpointError(origin + ": " + what + " '" + item.key() + "' has shape " +
                            c10::str(saved.sizes()) + ", the model expects " +
                            c10::str(item.value().sizes()) + "; it was written for another "
                            "model or dataset");
    }
    item.value().copy_(saved);
  }
}

}  // namespace

TensorDict Replica::weights() const {
  TensorDict dict;
  for (const auto& p : model->named_parameters()) dict.insert(p.key(), p.value().detach().cpu().clone());
  for (const auto& b : model->named_buffers()) dict.insert(b.key(), b.value().detach().cpu().clone());
  return dict;
}

TensorDict Replica::optimizerState() const {
  TensorDict dict;
  const auto params = model->named_parameters();
  const auto& buffers = optimizer->momentumBuffers();
  for (std::size_t i = 0; i < params.size(); ++i) {
    dict.insert(params[i].key(), buffers[i].detach().cpu().clone());
  }
  return dict;
}

void Replica::load(const TensorDict& weights, const TensorDict& optimizerState,
                   const std::string& origin) {
  restore(model->named_parameters(), weights, "parameter", origin);
  restore(model->named_buffers(), weights, "buffer", origin);
  torch::OrderedDict<std::string, torch::Tensor> momentum;
  const auto params = model->named_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    momentum.insert(params[i].key(), optimizer->momentumBuffers()[i]);
  }
  restore(momentum, optimizerState, "momentum buffer", origin);
}

void Replica::initialiseFrom(const TensorDict& stateDict, const std::string& origin, const std::string& modelName) {
  std::vector<std::string> expected;
  for (const auto& p : model->named_parameters()) expected.push_back(p.key());
  for (const auto& b : model->named_buffers()) expected.push_back(b.key());
  const std::string model = "the " + modelName + " model";
  for (const std::string& key : expected) {
    if (!stateDict.contains(key)) {
      throw CheckpointError(origin + " has no '" + key + "', which " + model +
                            " has; it was saved from another model (python/ensemble_lab's models have our names)");
    }
  }
  for (const auto& item : stateDict) {
    if (std::find(expected.begin(), expected.end(), item.key()) == expected.end()) {
      throw CheckpointError(origin + " has '" + item.key() + "', which " + model +
                            " does not have; it was saved from another model");
    }
  }
  restore(this->model->named_parameters(), stateDict, "parameter", origin);
  restore(this->model->named_buffers(), stateDict, "buffer", origin);
}

Replica makeReplica(const std::string& modelName, const ModelInput& input,
                    const DeviceRef& device, std::uint64_t seed, double learningRate,
                    double momentum, double weightDecay, double initStd) {
  static std::mutex globalGeneratorMutex;
  Replica replica;
  replica.deviceRef = device;
  replica.device = torch::Device(device.str());
  replica.input = input;
  {
    std::lock_guard<std::mutex> lock(globalGeneratorMutex);
    torch::manual_seed(torchSeed(seed));
    replica.model = makeModel(modelName, input);  // initialised on the CPU: same on any device
    if (initStd > 0) {
      // Convolution and dense weights are the parameters of two or more dimensions (biases
      // and BatchNorm's are vectors), whatever module holds them: d2l's init_weights.
      const torch::NoGradGuard noGrad;
      for (torch::Tensor& parameter : replica.model->parameters()) {
        if (parameter.dim() >= 2) parameter.normal_(0.0, initStd);
      }
    }
  }
  replica.model->to(replica.device);
  replica.optimizer =
      std::make_unique<SgdMomentum>(replica.model->parameters(), learningRate, momentum, weightDecay);
  return replica;
}

}  // namespace ensemble
