// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A first-layer convolution on the GPU as one matrix product over its taps.
//
// With one input channel (MNIST, Fashion-MNIST) a 3x3 convolution does nine multiply-adds
// per output value: it only moves bytes, and cuDNN does that poorly. Profiled on an H200
// (issue 29; bench/gpu_kernel_profile.sh), the stacked ensemble of 8's first layer took
// about a third of the step: its forward convolution (92 us) and a separate bias add (90 us)
// each wrote the 103 MB output, and its weight gradient (cuDNN's wgrad_alg1_engine) took
// 458 us. As a matrix product of the images' taps (unfold: 9 values a pixel, plus a 1 for
// the bias) with the filters, the forward writes the output once, and the weight and bias
// gradient is one more product that reads the output's gradient once. cuBLAS's products are
// deterministic, so deterministic runs stay so.
#include <torch/types.h>

namespace ensemble {

/// Whether convolveByTaps is the better way to convolve these operands: images on a GPU with
/// few input values per tap window (at most 27: three channels of 3x3), an odd square kernel.
bool convolvesByTaps(const torch::Tensor& images, const torch::Tensor& weight);

/// conv2d(images, weight, bias, stride 1, padding (k - 1) / 2) for a k x k `weight`, computed as
/// one product of the images' unfolded taps with the filters (bias may be undefined). The
/// result is channels-last (NHWC in memory) or NCHW, as asked: the layout the next layer wants.
torch::Tensor convolveByTaps(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias,
                             bool channelsLast);

}  // namespace ensemble
