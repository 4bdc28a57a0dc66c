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

/// target = source^T (+ rowBias[r] on source's row r, where rowBias is not null), source being
/// rows x cols, row-major: target's rows [first, last), which are source's columns. The forward
/// pass's way in (x^T) and out (y = (y^T)^T + bias).
void transposeColumns(int64_t first, int64_t last, const float* source, int64_t rows, int64_t cols,
                      const float* rowBias, float* target);

/// y^T = W x^T, as a product whose every element is one sum in order over `in` (the same bits at
/// either panel width): inputT [in][batch], outputT [out][batch], for output features [first,
/// last). Where x W^T went as dot products of rows, its forward ran at 30 GFLOP/s on one core,
/// this at 53, the transposes included (2026-11-27).
void forwardFeatures(int64_t first, int64_t last, const float* inputT, const float* weight, float* outputT,
                     const DenseShape& shape);

/// The input's gradient, gradX = gradY W, for the batch's rows [first, last).
void inputGradientRows(int64_t first, int64_t last, const float* gradY, const float* weight, float* gradX,
                       const DenseShape& shape);

/// The weight's gradient, gradW = gradY^T x, for output features [first, last): each row a
/// sum over the whole batch.
void weightGradientRows(int64_t first, int64_t last, const float* gradY, const float* x, float* gradWeight,
                        const DenseShape& shape);

}  // namespace ensemble::dense_loops
