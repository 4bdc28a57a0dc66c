// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution (one group per member) as batched matrix products, on
// a GPU in float32 (IEEE or TF32).
//
// cuDNN runs a grouped float32 convolution as one launch per group: in issue 29's kernel
// profile of 8 stacked members, 8 forward, 8 input-gradient and 8 weight-gradient kernels
// of 67-123 us each, most of the step. Here the 3x3 neighbourhoods are unfolded once
// (im2col) and every (image, member) pair's patch matrix is multiplied by its member's
// filters: one cuBLAS batched product forward, two backward, and col2im (a gather, so
// deterministic) for the input's gradient. It costs the unfolded patches' memory, which the
// backward keeps (9x the layer's input).
//
// Chosen by ENSEMBLELAB_STACKED_CONV (environment::kStackedConv): "products" or "cudnn".
#include <torch/types.h>

namespace ensemble {

/// Whether stackedConvolution3x3 multiplies these operands (else cuDNN's grouped conv2d).
bool memberProductsConvolve(const torch::Tensor& input, const torch::Tensor& weight);

/// conv2d(input, weight, bias, stride 1, padding 1, groups = members) for a 3x3 `weight`
/// [members * out, in, 3, 3] and an input [batch, members * in, height, width].
torch::Tensor stackedConvolution3x3(const torch::Tensor& input, const torch::Tensor& weight,
                                    const torch::Tensor& bias, int64_t members);

}  // namespace ensemble
