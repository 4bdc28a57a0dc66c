// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's side of our fused layers (CUDA builds only): their CUDA kernels launched on
// LibTorch's current stream.
// - The fused avg_pool2d(relu(x), 2) (ReluAvgPoolKernels.cu), called by ReluAvgPool.cpp's
//   autograd function for CUDA tensors of fp32, bf16 or fp16.
// - The fused first layer, avg_pool2d(relu(conv2d(images, weight, bias, padding 1)), 2) for
//   one-channel images (ConvReluPoolKernels.cuh), called by ConvReluPool.cpp's.
// - The stacked CNN's grouped 3x3 convolution in fp32 (GroupedConvKernels.cuh), or TF32 and
//   bf16 on tensor cores (GroupedConvMmaKernels.cuh), called by GroupedConv.cpp's.
#include <torch/types.h>

#include "core/models/GroupedConv.h"  // GroupedConvArithmetic

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

/// out = conv2d(in, weight, bias, padding 1, groups), contiguous NCHW on one GPU: `in`,
/// `weight` and `out` float, or bfloat16 for GroupedConvArithmetic::BFloat16; `bias` float, or
/// undefined (none). `onMmaSync` (fp32 and TF32 only): the mma.sync kernels
/// (groupedConvOnMmaSync).
void groupedConvForwardOnCuda(const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias,
                              torch::Tensor& out, int64_t groups, GroupedConvArithmetic arithmetic, bool onMmaSync);
/// The weight's gradient (float, contiguous, shaped as the weight) of that convolution for
/// `gradOut` (of `in`'s type); `onMmaSync` as for the forward.
void groupedConvWeightGradientOnCuda(const torch::Tensor& in, const torch::Tensor& gradOut, torch::Tensor& gradWeight,
                                     int64_t groups, GroupedConvArithmetic arithmetic, bool onMmaSync);

}  // namespace ensemble
