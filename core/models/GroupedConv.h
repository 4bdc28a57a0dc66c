// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution, conv2d(input, weight, bias, padding 1, groups): one
// group per member. On a GPU it can run our own kernels (CUDA builds) instead of cuDNN's, which
// take the groups one at a time: fp32 ones (GroupedConvKernels.cuh), and tensor-core ones for
// TF32 (--precision tf32) and bf16 autocast (GroupedConvMmaKernels.cuh), and fp32 or TF32 on
// the mma.sync kernels (GroupedConvMmaSyncKernels.cuh: fp32 as three TF32 products of split
// operands). By default fp32 runs ours on mma.sync and TF32 and bf16 run cuDNN's, the fastest in
// each as an H200 measured them (docs/GPU.md: on mma.sync the fp32 step ran 1.12-1.15x our
// CUDA-core kernels', TF32's 0.98x cuDNN's); ENSEMBLELAB_STACKED_CONV=ours (fp32 on the CUDA
// cores, TF32 and bf16 on wmma), =ours-mma-sync or =cudnn picks one for every precision.
// Anywhere else this is LibTorch's conv2d.
#include <torch/types.h>

namespace ensemble {

/// How our grouped convolution multiplies: fp32 on the CUDA cores (GroupedConvKernels.cuh), or
/// on tensor cores (GroupedConvMmaKernels.cuh) with float operands rounded to TF32 or with
/// bfloat16 ones, sums in float.
enum class GroupedConvArithmetic { Float32, TensorFloat32, BFloat16 };

/// Whose kernels ENSEMBLELAB_STACKED_CONV asks for: unset, the measured faster per arithmetic.
enum class GroupedConvKernels { Measured, Ours, OursOnMmaSync, Cudnn };

/// ENSEMBLELAB_STACKED_CONV read now; another value than "ours", "ours-mma-sync" or "cudnn" is
/// a ConfigError.
GroupedConvKernels groupedConvKernelsAsked();

/// For the bench tools that measure our kernels: sets ENSEMBLELAB_STACKED_CONV=ours unless it
/// already asks for a form of them (ours-mma-sync), before anything reads it; returns what it
/// asks for now. A value it does not take is a ConfigError.
GroupedConvKernels askForOurGroupedConvKernels();

/// Whether our kernels run an operand set of `arithmetic` when `asked` says so: Measured
/// takes ours in fp32 only (on mma.sync 1.12-1.15x the step of our CUDA-core kernels, which ran
/// 1.02-1.05x cuDNN's; in TF32 and bf16 ours ran 0.79-0.98x cuDNN's).
bool ourGroupedConvChosenFor(GroupedConvArithmetic arithmetic, GroupedConvKernels asked);

/// Whether our kernels of `arithmetic` are the mma.sync ones when `asked` says so:
/// OursOnMmaSync in fp32 (three TF32 products) and TF32 (one); Measured in fp32.
bool groupedConvOnMmaSync(GroupedConvArithmetic arithmetic, GroupedConvKernels asked);

/// Whether groupedConv3x3 runs our kernels for these operands: chosen, a CUDA build, NCHW
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
