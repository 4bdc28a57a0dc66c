// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CNN's second convolution (3x3, stride 1, padding 1) on the CPU as Winograd's F(2x2, 3x3)
// (WinogradLoops.h), forward and backward.
//
// That convolution was about 60% of an ensemble member's CPU step, in oneDNN's direct
// convolutions, and the step as a whole already ran at 75% of the core's best matrix product
// (docs/BENCHMARKS.md): going faster needed fewer multiplications, not faster ones. F(2x2,
// 3x3) does 2.25x fewer, as small matrix products over a block of tiles that stays in the
// core's cache; the backward pass shares the forward's transforms.
//
// The arithmetic is not LibTorch's: results agree with conv2d to float rounding (TestModels),
// and do not depend on the thread count. Any other case (a GPU, another type, channel counts
// that are not multiples of 8, autocast) takes LibTorch's conv2d.
#include <torch/types.h>

namespace ensemble {

/// Whether conv3x3SamePadded runs these operands as Winograd (else LibTorch's conv2d).
bool winogradConvolves(const torch::Tensor& input, const torch::Tensor& weight);

/// conv2d(input, weight, bias, stride 1, padding 1) for a 3x3 `weight`; channels-last where
/// Winograd runs it.
torch::Tensor conv3x3SamePadded(const torch::Tensor& input, const torch::Tensor& weight,
                                const torch::Tensor& bias);

/// avg_pool2d(relu(conv3x3SamePadded(input, weight, bias)), 2) with the bits of those ops
/// (reluAvgPool2x2), channels-last. Where Winograd runs the convolution, the ReLU and the pool
/// are its output stage (forwardImagesReluPool): the convolution's output is never written,
/// and its backward reads the pooled gradient and a bit of ReLU's mask per value instead of a
/// full-size float gradient. Elsewhere the three ops run one after another.
torch::Tensor conv3x3ReluAvgPool2x2(const torch::Tensor& input, const torch::Tensor& weight,
                                    const torch::Tensor& bias);

}  // namespace ensemble
