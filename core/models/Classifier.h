// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The interface every model implements: images [N, C, H, W] in, class logits [N, K] out.
#include <torch/nn/module.h>

#include <cstdint>

namespace ensemble {

/// The shape of one input image and the number of classes a model predicts.
struct ModelInput {
  int64_t channels = 1;
  int64_t height = 28;
  int64_t width = 28;
  int64_t classes = 10;
};

/// Base of all models, so replicas, checkpoints and the registry treat them alike.
class ClassifierImpl : public torch::nn::Module {
 public:
  /// Logits for a float batch [N, C, H, W] scaled to [0, 1].
  virtual torch::Tensor forward(torch::Tensor images) = 0;
};

}  // namespace ensemble
