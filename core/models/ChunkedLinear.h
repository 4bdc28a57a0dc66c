// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A dense layer, input W^T + b, whose three matrix products run in our own loops
// (DenseLoops.h), in chunks side by side on LibTorch's threads: the output and the input's
// gradient by rows of the batch, the weight's gradient by rows of the weight (output
// features). No product is split along the dimension it sums over, so the numbers are the
// same on any number of cores (TestModels).
//
// Why: Debian's OpenBLAS runs each product on one thread (its own threads spin against
// LibTorch's: docs/BENCHMARKS.md), which kept one of two cores idle, and on CPUs newer than
// it, in SSE3 kernels (DenseLoops.h). MKL (the torch wheels) threads its products itself, but
// its sums depend on how many threads it takes, which varies with the load: on an AMD EPYC
// (2026-11-28) replicas evaluated side by side gave other bits than one alone, 7e-9 apart. So
// MKL builds take these loops too: the same numbers on any number of threads everywhere.
#include <torch/types.h>

namespace ensemble {

/// Whether chunkedLinear splits these operands (float32 on the CPU, no autocast); otherwise
/// it is torch::linear.
bool chunkedLinearSplits(const torch::Tensor& input, const torch::Tensor& weight);

/// torch::linear(input, weight, bias) for a 2-D input, its products computed in chunks.
torch::Tensor chunkedLinear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace ensemble
