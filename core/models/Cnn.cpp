// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/Cnn.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/models/Bf16OnFloatKernels.h"
#include "core/models/ChannelsLastWeight.h"
#include "core/models/ChunkedLinear.h"
#include "core/models/ConvReluPool.h"
#include "core/models/ReluAvgPool.h"
#include "core/models/WinogradConv.h"

namespace ensemble {
namespace {

/// On the CPU the activations stay channels-last (NHWC): oneDNN convolves NHWC as it is,
/// while around an NCHW convolution it reorders the input, the output and, backward, both
/// gradients to and from its blocked layout — memory-bound copies of the largest tensors
/// of the step. The fused ReLU + pool keeps the layout; flatten() puts the dense layer's
/// input back in NCHW order, so the weights (checkpoints, PyTorch) are as before.
/// On a GPU, cuDNN's NHWC kernels are the ones its tensor cores (TF32, bf16) take, and the
/// fused pool's CUDA kernels keep the layout too (issue 29; its speed is measured by
/// bench/run_bench.py --gpu).
bool convolvesChannelsLast(const torch::Tensor& images) {
  return (images.device().is_cpu() && images.scalar_type() == torch::kFloat32) || images.device().is_cuda();
}

}  // namespace

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
  // The first layer (stride 1, padding 1) is fused where ConvReluPool.h can: the CPU's
  // loops (channels-last; under bf16 autocast too, Bf16OnFloatKernels.h), the GPU's kernels (in
  // the weight's layout, as conv2d would be).
  if (convReluPoolFusesOnCpu(x, m_conv1->weight) || bf16AutocastOnCpu(x)) {
    x = convReluAvgPool2x2(x, m_conv1->weight, m_conv1->bias);
  } else if (convolvesChannelsLast(x)) {
    x = convReluAvgPool2x2(x, channelsLastCopy(m_conv1->weight), m_conv1->bias);
  } else {
    x = reluAvgPool2x2(m_conv1(x));
  }
  // Winograd on the CPU with ReLU and the pool as its output stage (WinogradConv.h), the
  // separate ops in the layout of the input elsewhere.
  x = conv3x3ReluAvgPool2x2(x, m_conv2->weight, m_conv2->bias);
  // The first dense layer is the step's largest matrix product: chunked over the cores
  // (ChunkedLinear.h); the second (256 x 10) is too small to gain.
  x = torch::relu(chunkedLinear(x.flatten(1), m_dense1->weight, m_dense1->bias));
  return applied(*m_dense2, x);
}

}  // namespace ensemble
