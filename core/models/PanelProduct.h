// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// C = or += A B in registers: the matrix product at the heart of the CPU's Winograd
// convolution (WinogradLoops.cpp) and of the dense layer (DenseLoops.cpp). Header-only and
// always inlined, so that each function cloned per instruction set (CpuClones.h) that calls it
// gets it built for that set: a helper left out of line is built once, for the baseline, and
// the accumulators then live in memory (10x slower, measured).
//
// Include it only from a file built with -ffp-contract=fast (core/CMakeLists.txt), where
// `acc += a * b` is one fused multiply-add. Every sum runs in an order fixed by the shapes
// alone: the same numbers on any number of threads.
#include <cstdint>

#include "core/common/CpuClones.h"
#include "core/common/FloatVector.h"

namespace ensemble::panel_product {

using Vec = FloatVector;
using WideVector = WideFloatVector;
constexpr int64_t kWidth = kFloatVectorWidth;

/// C (rows x cols) = or += A (rows x inner) B (inner x cols), for Rows rows of C and Vecs
/// registers' worth of its columns, all held in registers (Rows * Vecs accumulators) while the
/// inner dimension streams past. A's element (r, i) is a[r * aRow + i * aInner], so one kernel
/// serves A and A^T. Each of C's elements is one lane summing over `inner` in order, so the
/// vector's width changes no number.
template <typename V, int Rows, int Vecs>
ENSEMBLELAB_ALWAYS_INLINE void productPanel(int64_t inner, const float* a, int64_t aRow, int64_t aInner,
                                            const float* b, int64_t bRow, float* c, int64_t cRow, bool accumulate) {
  constexpr int64_t lanes = kLanes<V>;
  V acc[Rows][Vecs];
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < Vecs; ++v) acc[r][v] = accumulate ? loadLanes<V>(c + r * cRow + v * lanes) : V{};
  }
  for (int64_t i = 0; i < inner; ++i) {
    V bv[Vecs];
    for (int v = 0; v < Vecs; ++v) bv[v] = loadLanes<V>(b + i * bRow + v * lanes);
    for (int r = 0; r < Rows; ++r) {
      // A scalar times a vector: one broadcast from memory (building the vector by hand,
      // `Vec{} + x` or `Vec{x, ..., x}`, came out as an add or eight inserts in the clones, and
      // halved the products' speed).
      const float av = a[r * aRow + i * aInner];
      for (int v = 0; v < Vecs; ++v) acc[r][v] += av * bv[v];
    }
  }
  for (int r = 0; r < Rows; ++r) {
    for (int v = 0; v < Vecs; ++v) storeLanes<V>(c + r * cRow + v * lanes, acc[r][v]);
  }
}

/// Four rows by two registers: 8 accumulators, 2 loads and 4 broadcasts per 8 multiply-adds,
/// within an AVX2 core's 16 registers. It makes 94 GFLOP/s on the CNN's shapes on one Zen 3
/// core, as much as OpenBLAS's large sgemm there; six rows made 90.
constexpr int kPanelRows = 4;

/// With AVX-512's 32 registers: six rows by four 16-float registers, 24 accumulators, 4 loads
/// and 6 broadcasts per 24 multiply-adds, where the 4 x 2 panel needs 6 per 8. On an Emerald
/// Rapids machine 1.15x the Winograd convolution and 1.6x the dense layer, forward and
/// backward (ensemble-lab-layer-timing, docs/BENCHMARKS.md); 8 x 2, 4 x 4 and 12 x 2 panels
/// were between the two in a standalone timing of the CNN's product shapes.
constexpr int kWidePanelRows = 6;

/// Rows of C in panels of PanelRows rows (the last rows in one smaller panel), Vecs registers
/// of V wide.
template <typename V, int Vecs, int PanelRows = kPanelRows>
ENSEMBLELAB_ALWAYS_INLINE void productRows(int64_t rows, int64_t inner, const float* a, int64_t aRow, int64_t aInner,
                                           const float* b, int64_t bRow, float* c, int64_t cRow, bool accumulate) {
  int64_t r = 0;
  for (; r + PanelRows <= rows; r += PanelRows) {
    productPanel<V, PanelRows, Vecs>(inner, a + r * aRow, aRow, aInner, b, bRow, c + r * cRow, cRow, accumulate);
  }
  const float* const aRest = a + r * aRow;
  float* const cRest = c + r * cRow;
  switch (rows - r) {
    case 5:
      if constexpr (PanelRows > 5) {
        productPanel<V, 5, Vecs>(inner, aRest, aRow, aInner, b, bRow, cRest, cRow, accumulate);
      }
      break;
    case 4:
      if constexpr (PanelRows > 4) {
        productPanel<V, 4, Vecs>(inner, aRest, aRow, aInner, b, bRow, cRest, cRow, accumulate);
      }
      break;
    case 3: productPanel<V, 3, Vecs>(inner, aRest, aRow, aInner, b, bRow, cRest, cRow, accumulate); break;
    case 2: productPanel<V, 2, Vecs>(inner, aRest, aRow, aInner, b, bRow, cRest, cRow, accumulate); break;
    case 1: productPanel<V, 1, Vecs>(inner, aRest, aRow, aInner, b, bRow, cRest, cRow, accumulate); break;
    default: break;
  }
}

/// C = or += A B for the first cols - cols % kWidth columns of C (row stride cRow) and B (row
/// stride bRow); the caller computes any columns left over. `wide`: useWideRegisters().
ENSEMBLELAB_ALWAYS_INLINE void product(int64_t rows, int64_t inner, int64_t cols, const float* a, int64_t aRow,
                                       int64_t aInner, const float* b, int64_t bRow, float* c, int64_t cRow,
                                       bool accumulate, bool wide) {
  int64_t column = 0;
  if (wide) {
    for (; column + 8 * kWidth <= cols; column += 8 * kWidth) {
      productRows<WideVector, 4, kWidePanelRows>(rows, inner, a, aRow, aInner, b + column, bRow, c + column, cRow,
                                                 accumulate);
    }
    // Six rows here too (12 accumulators): the Winograd input gradient's 32 columns ran at
    // 128 GFLOP/s in 4 x 2 panels and 155 in 6 x 2 (12 x 2: 157), one core, its shapes.
    for (; column + 4 * kWidth <= cols; column += 4 * kWidth) {
      productRows<WideVector, 2, kWidePanelRows>(rows, inner, a, aRow, aInner, b + column, bRow, c + column, cRow,
                                                 accumulate);
    }
  }
  for (; column + 2 * kWidth <= cols; column += 2 * kWidth) {
    productRows<Vec, 2>(rows, inner, a, aRow, aInner, b + column, bRow, c + column, cRow, accumulate);
  }
  if (column + kWidth <= cols) {
    productRows<Vec, 1>(rows, inner, a, aRow, aInner, b + column, bRow, c + column, cRow, accumulate);
  }
}

}  // namespace ensemble::panel_product
