// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The fused avg_pool2d(relu(x), 2) on a GPU, as an autograd function (CUDA builds only;
// core/models/ReluAvgPool.cpp chooses it for CUDA tensors it can fuse).
#include <torch/types.h>

namespace ensemble {

/// Whether `input` (4-D, on a GPU) is one the CUDA kernels fuse: fp32, bf16 or fp16, NCHW or
/// channels-last contiguous, at least 2x2.
bool fusesOnCuda(const torch::Tensor& input);
torch::Tensor reluAvgPool2x2Cuda(const torch::Tensor& input);

}  // namespace ensemble
