// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A convolution's weight in channels-last order, for the models that convolve channels-last
// (Cnn.cpp on a CPU and a GPU, StackedCnn.cpp where asked): conv2d's output takes the layout
// of its input and weight, and so does the fused first layer's on a GPU (ConvReluPool.h).
#include <torch/types.h>

namespace ensemble {

/// A channels-last copy of `weight` ([out, in, kh, kw]), through which the gradient flows
/// back. With one input channel the weight (and the image) is contiguous in both layouts and
/// LibTorch would choose NCHW, so the strides are set explicitly.
inline torch::Tensor channelsLastCopy(const torch::Tensor& weight) {
  const int64_t inChannels = weight.size(1), kernelWidth = weight.size(3);
  const int64_t kernelArea = weight.size(2) * kernelWidth;
  return torch::empty_strided(weight.sizes(), {inChannels * kernelArea, 1, kernelWidth * inChannels, inChannels},
                              weight.options())
      .copy_(weight);
}

}  // namespace ensemble
