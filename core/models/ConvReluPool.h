// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CNN's first layer, avg_pool2d(relu(conv2d(images, weight, bias, padding 1)), 2), as one
// pass forward and one pass back, for one-channel images (MNIST, Fashion-MNIST): the CPU's
// loops (ConvReluPoolLoops.cpp), and in a CUDA build the GPU's kernels
// (ConvReluPoolKernels.cuh, which say what they save there).
//
// Unfused, oneDNN convolves a single input channel poorly (about 25 GFLOP/s forward and
// backward on an AVX2 core, against 75 for the second convolution), and the layer writes and
// reads back its 32-channel output and that output's gradient: 12.8 MB each per member at
// batch 128, the largest tensors of the step. Fused, the forward writes only the pooled
// quarter; the backward computes the convolution again from the images (nine multiply-adds a
// value) to know where ReLU passed, and sums the weights' gradient on the way. No tensor of the
// convolution's size is ever stored. It was about 8% of the ensemble's CPU step
// (docs/BENCHMARKS.md).
//
// The arithmetic is not LibTorch's (other summation order, fused multiply-adds): results agree
// with the unfused ops to float rounding (TestModels, TestCudaKernelsOnCpu,
// ensemble-lab-kernel-check), and do not depend on the thread count or the run.
// On the CPU, any other case (another type, several input channels, images that need their
// own gradient, autocast) takes the unfused ops. On a GPU, the same but for autocast: the
// kernels compute in float and write autocast's type (bf16, fp16), as conv2d's output would be.
#include <torch/types.h>

namespace ensemble {

/// Whether convReluAvgPool2x2 fuses these operands in the CPU's loops.
bool convReluPoolFusesOnCpu(const torch::Tensor& images, const torch::Tensor& weight);

/// avg_pool2d(relu(conv2d(images, weight, bias, stride 1, padding 1)), 2) for a 3x3 `weight`.
/// The result is channels-last where the CPU's loops fuse; elsewhere in the layout the unfused
/// conv2d would give (on a GPU: channels-last for a channels-last weight, else NCHW).
torch::Tensor convReluAvgPool2x2(const torch::Tensor& images, const torch::Tensor& weight,
                                 const torch::Tensor& bias);

}  // namespace ensemble
