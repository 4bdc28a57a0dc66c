// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ResNet18.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/models/Bf16OnFloatKernels.h"

namespace ensemble {

ResidualImpl::ResidualImpl(int64_t inChannels, int64_t outChannels, int64_t stride) {
  using torch::nn::Conv2dOptions;
  m_conv1 = register_module(
      "conv1", torch::nn::Conv2d(Conv2dOptions(inChannels, outChannels, 3).padding(1).stride(stride)));
  m_conv2 = register_module("conv2",
                            torch::nn::Conv2d(Conv2dOptions(outChannels, outChannels, 3).padding(1)));
  m_bn1 = register_module("bn1", torch::nn::BatchNorm2d(outChannels));
  m_bn2 = register_module("bn2", torch::nn::BatchNorm2d(outChannels));
  if (stride != 1 || inChannels != outChannels) {
    m_shortcut = register_module(
        "shortcut", torch::nn::Conv2d(Conv2dOptions(inChannels, outChannels, 1).stride(stride)));
  }
}

torch::Tensor ResidualImpl::forward(torch::Tensor x) {
  torch::Tensor y = torch::relu(m_bn1(applied(*m_conv1, x)));
  y = m_bn2(applied(*m_conv2, y));
  return torch::relu(y + (m_shortcut ? applied(*m_shortcut, x) : x));
}

ResNet18Impl::ResNet18Impl(const ModelInput& input) {
  // Below 16x16 the three stride-2 stages leave maps of one pixel or two, whose BatchNorm
  // statistics come from a handful of values. Measured at the default lr 0.1, three seeds:
  // random images went to NaN within three steps at 1x1, 2x2 and 4x4, and by step 12 at
  // 8x8; at 16x16 every run stayed finite. Gradients at initialisation are about 1e8 at
  // 4x4, 115 at 8x8 and under 1 at 16x16. (Fashion-MNIST scaled down is kinder: 4x4 to
  // 12x12 trained at batch 128, 1x1 and 2x2 reached 12-16% or NaN.) The bound is the size
  // where nothing we tried diverged; refused here, the message names the size instead of
  // blaming the learning rate after a NaN.
  if (input.height < 16 || input.width < 16) {
    throw ConfigError("the resnet18 model needs images of at least 16x16 pixels (smaller ones make its "
                      "training diverge); this dataset has " +
                      std::to_string(input.height) + "x" + std::to_string(input.width));
  }
  torch::nn::Sequential body;
  body->push_back(torch::nn::Conv2d(torch::nn::Conv2dOptions(input.channels, 64, 3).padding(1)));
  body->push_back(torch::nn::BatchNorm2d(64));
  body->push_back(torch::nn::ReLU());
  int64_t channels = 64;
  for (const int64_t stageChannels : {64, 128, 256, 512}) {
    const int64_t stride = stageChannels == 64 ? 1 : 2;  // the first stage keeps the size
    body->push_back(Residual(channels, stageChannels, stride));
    body->push_back(Residual(stageChannels, stageChannels, 1));
    channels = stageChannels;
  }
  body->push_back(torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions({1, 1})));
  m_body = register_module("body", body);
  m_fc = register_module("fc", torch::nn::Linear(512, input.classes));
}

torch::Tensor ResNet18Impl::forward(torch::Tensor images) {
  // Layer by layer, so that the first convolution is applied() too (Bf16OnFloatKernels.h).
  torch::Tensor x = images;
  for (auto& layer : *m_body) {
    auto* conv = layer.ptr()->as<torch::nn::Conv2d>();
    x = conv ? applied(*conv, x) : layer.forward(x);
  }
  return applied(*m_fc, x.flatten(1));
}

}  // namespace ensemble
