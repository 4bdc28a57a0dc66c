// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// LeNet-5 in d2l.ai's layout (Conv 6 5x5 pad 2 - pool - Conv 16 5x5 - pool - 120 - 84 - 10),
// with ReLU instead of sigmoid so that the shared default lr 0.1 trains it.
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "core/models/Classifier.h"

namespace ensemble {

class LeNetImpl final : public ClassifierImpl {
 public:
  explicit LeNetImpl(const ModelInput& input);
  torch::Tensor forward(torch::Tensor images) override;

 private:
  torch::nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr};
  torch::nn::Linear m_fc1{nullptr}, m_fc2{nullptr}, m_fc3{nullptr};
};
TORCH_MODULE(LeNet);

}  // namespace ensemble
