// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One trained copy of a model on one device, with its optimizer.
#include <torch/types.h>

#include <memory>
#include <string>

#include "core/common/TensorDict.h"
#include "core/devices/DeviceSpec.h"
#include "core/models/Classifier.h"
#include "core/train/SgdMomentum.h"

namespace ensemble {

struct Replica {
  DeviceRef deviceRef;
  torch::Device device{torch::kCPU};
  std::shared_ptr<ClassifierImpl> model;
  /// The image shape and class count the model was built for.
  ModelInput input;
  std::unique_ptr<SgdMomentum> optimizer;

  /// Parameters and buffers by name, copied to the CPU (what torch.load reads as a
  /// state_dict).
  TensorDict weights() const;
  /// Momentum buffers by their parameter's name, copied to the CPU.
  TensorDict optimizerState() const;
  /// Restores both; throws CheckpointError naming a missing or mis-shaped entry.
  void load(const TensorDict& weights, const TensorDict& optimizerState,
            const std::string& origin);
  /// Takes its parameters and buffers from a state_dict that must hold exactly the
  /// model's (`modelName`'s) entries (momentum stays zero). Throws CheckpointError naming `origin` and the
  /// first entry that is missing, unexpected or of another shape.
  void initialiseFrom(const TensorDict& stateDict, const std::string& origin, const std::string& modelName);
};

/// A model initialised from `seed` (torch's global generator is seeded under a lock, so
/// replicas may be built from several threads), its weights of two or more dimensions then
/// drawn from N(0, initStd²) where initStd > 0 (ExperimentConfig::initStd), moved to `device`,
/// with SGD of the given learning rate, momentum and weight decay (SgdMomentum.h).
Replica makeReplica(const std::string& modelName, const ModelInput& input,
                    const DeviceRef& device, std::uint64_t seed, double learningRate,
                    double momentum, double weightDecay = 0.0, double initStd = 0.0);

}  // namespace ensemble
