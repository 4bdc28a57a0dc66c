// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// d2l.ai's ResNet-18 variant for small images (d2l 8.6 / 13.6): a 3x3 stride-1 stem with
// BatchNorm and no max-pool, four stages of two residual blocks (64, 128, 256, 512
// channels), global average pooling, and a linear classifier. Any input size works.
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "core/models/Classifier.h"

namespace ensemble {

/// Two 3x3 convolutions with BatchNorm and a shortcut (1x1 conv when the shape changes).
class ResidualImpl final : public torch::nn::Module {
 public:
  ResidualImpl(int64_t inChannels, int64_t outChannels, int64_t stride);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr}, m_shortcut{nullptr};
  torch::nn::BatchNorm2d m_bn1{nullptr}, m_bn2{nullptr};
};
TORCH_MODULE(Residual);

class ResNet18Impl final : public ClassifierImpl {
 public:
  explicit ResNet18Impl(const ModelInput& input);
  torch::Tensor forward(torch::Tensor images) override;

 private:
  torch::nn::Sequential m_body{nullptr};
  torch::nn::Linear m_fc{nullptr};
};
TORCH_MODULE(ResNet18);

}  // namespace ensemble
