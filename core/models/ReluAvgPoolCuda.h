// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's side of the fused avg_pool2d(relu(x), 2) (CUDA builds only): the CUDA kernels
// of ReluAvgPoolKernels.cu launched on LibTorch's current stream. ReluAvgPool.cpp's
// autograd function calls them for CUDA tensors of fp32, bf16 or fp16.
#include <torch/types.h>

namespace ensemble {

/// `input` contiguous in its layout (channels-last or NCHW); `output` the pooled tensor,
/// allocated in the same layout.
void forwardOnCuda(const torch::Tensor& input, torch::Tensor& output, bool channelsLast);
/// `gradOutput` and `gradInput` in `input`'s layout and element type.
void backwardOnCuda(const torch::Tensor& input, const torch::Tensor& gradOutput, torch::Tensor& gradInput,
                    bool channelsLast);

}  // namespace ensemble
