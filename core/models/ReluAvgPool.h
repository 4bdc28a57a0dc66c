// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// avg_pool2d(relu(x), 2) as one pass forward and one pass backward on the CPU.
// Profiled, ReLU and 2x2 average pooling took about 44% of a CNN training step: four
// memory-bound sweeps over the largest activations. Fused, the forward reads the
// convolution's output once and writes the quarter-size result; the backward reads it and
// the pooled gradient once and writes the input gradient. The arithmetic is the unfused
// ops' own (the window summed in row order, then divided by 4; the gradient divided by 4,
// zero where the input is <= 0), so results are bit-identical to them. NCHW and channels-
// last (NHWC) inputs are both fused, and the output and the input's gradient keep the
// input's layout. On a GPU (CUDA builds) the same fusion runs as CUDA kernels for fp32, bf16
// and fp16 (ReluAvgPoolKernels.cu). Other devices, dtypes and layouts take the unfused ops.
#include <torch/types.h>

namespace ensemble {

torch::Tensor reluAvgPool2x2(const torch::Tensor& input);

}  // namespace ensemble
