// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution, conv2d(input, weight, bias, padding 1, groups): one
// group per member. On a GPU it can run our own kernels (CUDA builds) instead of cuDNN's, which
// take the groups one at a time: fp32 ones (GroupedConvKernels.cuh), and tensor-core ones for
// TF32 (--precision tf32) and bf16 autocast (GroupedConvMmaKernels.cuh). They are chosen with
// ENSEMBLELAB_STACKED_CONV=ours until a GPU's measurement (bench/gpu_layers_ab.sh) decides the
// default. Anywhere else this is LibTorch's conv2d.
#include <torch/types.h>

namespace ensemble {

/// Whether groupedConv3x3 runs our kernels for these operands: asked for, a CUDA build, NCHW
/// tensors on one GPU, a float 3x3 filter bank, and a float input (bf16 or float under bf16
/// autocast; autocast to fp16 stays cuDNN's).
bool groupedConvRunsOurKernels(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                               int64_t groups);

/// conv2d(input, weight, bias, stride 1, padding 1, groups) for a 3x3 `weight`.
torch::Tensor groupedConv3x3(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                             int64_t groups);

/// The filters whose convolution of the output's gradient (padding 1, `groups` groups) is the
/// input's gradient: each group's [out, in, 3, 3] block transposed to [in, out, 3, 3] and
/// flipped in both kernel axes. Contiguous.
torch::Tensor groupedConvInputGradientWeight(const torch::Tensor& weight, int64_t groups);

}  // namespace ensemble
