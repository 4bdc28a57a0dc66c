// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/Cnn.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/models/ReluAvgPool.h"

namespace ensemble {

CnnImpl::CnnImpl(const ModelInput& input) {
  const int64_t pooledHeight = input.height / 4, pooledWidth = input.width / 4;
  if (pooledHeight < 1 || pooledWidth < 1) {
    throw ConfigError("the cnn model needs images of at least 4x4 pixels; this dataset has " +
                      std::to_string(input.height) + "x" + std::to_string(input.width));
  }
  m_conv1 = register_module(
      "conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(input.channels, 32, 3).padding(1)));
  m_conv2 =
      register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(32, 64, 3).padding(1)));
  m_dense1 = register_module("dense1", torch::nn::Linear(64 * pooledHeight * pooledWidth, 256));
  m_dense2 = register_module("dense2", torch::nn::Linear(256, input.classes));
}

torch::Tensor CnnImpl::forward(torch::Tensor x) {
  x = reluAvgPool2x2(m_conv1(x));
  x = reluAvgPool2x2(m_conv2(x));
  x = torch::relu(m_dense1(x.flatten(1)));
  return m_dense2(x);
}

}  // namespace ensemble
