// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/LeNet.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/models/Bf16OnFloatKernels.h"

namespace ensemble {
namespace F = torch::nn::functional;

LeNetImpl::LeNetImpl(const ModelInput& input) {
  // Spatial size after: conv1 (same) -> pool -> conv2 (valid 5x5) -> pool.
  const auto outSide = [](int64_t side) { return (side / 2 - 4) / 2; };
  // The second pool needs 2 pixels a side: 12x12 images at the least (10x10 and 11x11 had
  // passed a check of the first convolutions only and failed inside LibTorch).
  if (outSide(input.height) < 1 || outSide(input.width) < 1) {
    throw ConfigError("the lenet model needs images of at least 12x12 pixels; this dataset has " +
                      std::to_string(input.height) + "x" + std::to_string(input.width));
  }
  m_conv1 = register_module(
      "conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(input.channels, 6, 5).padding(2)));
  m_conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(6, 16, 5)));
  m_fc1 = register_module("fc1",
                          torch::nn::Linear(16 * outSide(input.height) * outSide(input.width), 120));
  m_fc2 = register_module("fc2", torch::nn::Linear(120, 84));
  m_fc3 = register_module("fc3", torch::nn::Linear(84, input.classes));
}

torch::Tensor LeNetImpl::forward(torch::Tensor x) {
  x = F::avg_pool2d(torch::relu(applied(*m_conv1, x)), F::AvgPool2dFuncOptions(2));
  x = F::avg_pool2d(torch::relu(applied(*m_conv2, x)), F::AvgPool2dFuncOptions(2));
  x = torch::relu(applied(*m_fc1, x.flatten(1)));
  x = torch::relu(applied(*m_fc2, x));
  return applied(*m_fc3, x);
}

}  // namespace ensemble
