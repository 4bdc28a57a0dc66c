// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CNN of Flax's MNIST example and ensembling HOWTO:
// Conv 32 3x3 - ReLU - avg-pool 2 - Conv 64 3x3 - ReLU - avg-pool 2 - Dense 256 - ReLU - Dense 10.
// Convolutions use "same" padding as Flax does; the dense layer adapts to any input size.
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "core/models/Classifier.h"

namespace ensemble {

class CnnImpl final : public ClassifierImpl {
 public:
  explicit CnnImpl(const ModelInput& input);
  torch::Tensor forward(torch::Tensor images) override;

 private:
  torch::nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr};
  torch::nn::Linear m_dense1{nullptr}, m_dense2{nullptr};
};
TORCH_MODULE(Cnn);

}  // namespace ensemble
