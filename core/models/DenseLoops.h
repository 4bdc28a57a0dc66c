// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU loops of the dense layer, y = x W^T + b, and of its two gradients, in our own
// register-blocked products (PanelProduct.h) instead of the BLAS: Debian's OpenBLAS 0.3.21
// does not know CPUs newer than it (an Emerald Rapids Xeon, 2026-11-27) and runs its SSE3
// "Prescott" kernels there, at a fifth of the speed of these loops' AVX-512 clone
// (docs/BENCHMARKS.md). Each call covers a range of rows, so a caller can split a product over
// threads; every sum runs in an order fixed by the shapes alone.
//
// Plain C++ without LibTorch, built with flags of its own (core/CMakeLists.txt).
#include <cstdint>

namespace ensemble::dense_loops {

/// x [batch][in], W [out][in] (LibTorch's layout), y [batch][out]; row-major, any sizes.
struct DenseShape {
  int64_t batch = 0, in = 0, out = 0;
  bool wideRegisters = false;  ///< panel_product::useWideRegisters()
};

/// y = x W^T + bias for the batch's rows [first, last).
void forwardRows(int64_t first, int64_t last, const float* x, const float* weight, const float* bias, float* y,
                 const DenseShape& shape);

/// The input's gradient, gradX = gradY W, for the batch's rows [first, last).
void inputGradientRows(int64_t first, int64_t last, const float* gradY, const float* weight, float* gradX,
                       const DenseShape& shape);

/// The weight's gradient, gradW = gradY^T x, for output features [first, last): each row a
/// sum over the whole batch.
void weightGradientRows(int64_t first, int64_t last, const float* gradY, const float* x, float* gradWeight,
                        const DenseShape& shape);

}  // namespace ensemble::dense_loops
