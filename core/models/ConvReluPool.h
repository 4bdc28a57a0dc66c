// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CNN's first layer, avg_pool2d(relu(conv2d(images, weight, bias, padding 1)), 2), as one
// pass forward and one pass back on the CPU, for one-channel images (MNIST, Fashion-MNIST).
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
// with the unfused ops to float rounding (TestModels), and do not depend on the thread count.
// Any other case (a GPU, another type, several input channels, images that need their own
// gradient, autocast) takes the unfused ops.
#include <torch/types.h>

namespace ensemble {

/// Whether convReluAvgPool2x2 fuses these operands (else it runs the unfused ops).
bool convReluPoolFuses(const torch::Tensor& images, const torch::Tensor& weight);

/// avg_pool2d(relu(conv2d(images, weight, bias, stride 1, padding 1)), 2) for a 3x3 `weight`;
/// the result is channels-last where fused.
torch::Tensor convReluAvgPool2x2(const torch::Tensor& images, const torch::Tensor& weight,
                                 const torch::Tensor& bias);

}  // namespace ensemble
