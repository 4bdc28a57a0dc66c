// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A dense layer, input W^T + b, whose three matrix products run in fixed chunks side by side
// on LibTorch's threads: the output and the input's gradient by rows of the batch, the
// weight's gradient by rows of the weight (output features). No product is split along the
// dimension it sums over, and the chunks do not depend on the thread count, so the numbers
// are the same on any number of cores (TestModels).
//
// Why: Debian's OpenBLAS runs each product on one thread (its own threads spin against
// LibTorch's: docs/BENCHMARKS.md), so the CNN's first dense layer (batch 128 x 3136 x 256,
// about 8 ms of a single model's 35 ms step on an AVX2 core) kept one of two cores idle.
// MKL (the torch wheels) threads its products itself: there the plain layer is used.
#include <torch/types.h>

namespace ensemble {

/// Whether chunkedLinear splits these operands (float32 on the CPU, a BLAS that is not
/// threaded itself, no autocast); otherwise it is torch::linear.
bool chunkedLinearSplits(const torch::Tensor& input, const torch::Tensor& weight);

/// torch::linear(input, weight, bias) for a 2-D input, its products computed in chunks.
torch::Tensor chunkedLinear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace ensemble
