// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's side of our fused layers (CUDA builds only): their CUDA kernels launched on
// LibTorch's current stream.
// - The fused avg_pool2d(relu(x), 2) (ReluAvgPoolKernels.cu), called by ReluAvgPool.cpp's
//   autograd function for CUDA tensors of fp32, bf16 or fp16.
// - The fused first layer, avg_pool2d(relu(conv2d(images, weight, bias, padding 1)), 2) for
//   one-channel images (ConvReluPoolKernels.cuh), called by ConvReluPool.cpp's.
#include <torch/types.h>

namespace ensemble {

/// `input` contiguous in its layout (channels-last or NCHW); `output` the pooled tensor,
/// allocated in the same layout.
void forwardOnCuda(const torch::Tensor& input, torch::Tensor& output, bool channelsLast);
/// `gradOutput` and `gradInput` in `input`'s layout and element type.
void backwardOnCuda(const torch::Tensor& input, const torch::Tensor& gradOutput, torch::Tensor& gradInput,
                    bool channelsLast);

/// `images` [N, 1, H, W], `weight` [C, 1, 3, 3] and `bias` [C]: contiguous float on one GPU.
/// `pooled` [N, C, H / 2, W / 2], allocated channels-last or NCHW, of fp32, bf16 or fp16.
void convReluPoolForwardOnCuda(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias,
                               torch::Tensor& pooled, bool channelsLast);
/// The weight's and the bias's gradients (float, shaped as they are) for `gradPooled`, laid
/// out and typed as the forward's `pooled`.
void convReluPoolBackwardOnCuda(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias,
                                const torch::Tensor& gradPooled, torch::Tensor& gradWeight, torch::Tensor& gradBias,
                                bool channelsLast);

}  // namespace ensemble
