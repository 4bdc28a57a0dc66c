// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/DenseLoops.h"

#include "core/common/CpuClones.h"
#include "core/models/PanelProduct.h"

// Built with -ffp-contract=fast (core/CMakeLists.txt): `acc += a * b` is one fused multiply-add
// where the CPU has it. Results differ from the BLAS's in the last bits (another order of the
// same sums).

namespace ensemble::dense_loops {
namespace {

using panel_product::kWidth;
using panel_product::Vec;

/// The sum of a vector's lanes, in a fixed order.
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE float laneSum(V v) {
  float sum = 0.f;
  for (int64_t lane = 0; lane < panel_product::kLanes<V>; ++lane) sum += v[lane];
  return sum;
}

/// y[r][o] = bias[o] + the dot product of x's row r and W's row o, for Rows rows of x and Cols
/// rows of W at once: both run along `in`, contiguous, so each of the Rows * Cols sums is a
/// vector of partial sums until the end. 4 x 3 is 12 accumulators, 4 + 3 loads per 12
/// multiply-adds, within an AVX2 core's 16 registers. The partial sums are as many as V's
/// lanes: 16 where the CPU has AVX-512, 8 elsewhere, so the last bits of y depend on the CPU
/// (on one machine they are always the same).
template <typename V, int Rows, int Cols>
ENSEMBLELAB_ALWAYS_INLINE void dotPanel(const float* x, const float* weight, const float* bias, float* y,
                                        const DenseShape& shape) {
  constexpr int64_t lanes = panel_product::kLanes<V>;
  const int64_t in = shape.in, vectorPart = in - in % lanes;
  V acc[Rows][Cols] = {};
  for (int64_t i = 0; i < vectorPart; i += lanes) {
    V w[Cols];
    for (int c = 0; c < Cols; ++c) w[c] = panel_product::loadLanes<V>(weight + c * in + i);
    for (int r = 0; r < Rows; ++r) {
      const V xv = panel_product::loadLanes<V>(x + r * in + i);
      for (int c = 0; c < Cols; ++c) acc[r][c] += xv * w[c];
    }
  }
  for (int r = 0; r < Rows; ++r) {
    for (int c = 0; c < Cols; ++c) {
      float sum = laneSum(acc[r][c]);
      for (int64_t i = vectorPart; i < in; ++i) sum += x[r * in + i] * weight[c * in + i];
      y[r * shape.out + c] = bias[c] + sum;
    }
  }
}

constexpr int kDotRows = 4, kDotCols = 3;

template <typename V, int Rows>
ENSEMBLELAB_ALWAYS_INLINE void dotRows(const float* x, const float* weight, const float* bias, float* y,
                                       const DenseShape& shape) {
  int64_t o = 0;
  for (; o + kDotCols <= shape.out; o += kDotCols) {
    dotPanel<V, Rows, kDotCols>(x, weight + o * shape.in, bias + o, y + o, shape);
  }
  switch (shape.out - o) {
    case 2: dotPanel<V, Rows, 2>(x, weight + o * shape.in, bias + o, y + o, shape); break;
    case 1: dotPanel<V, Rows, 1>(x, weight + o * shape.in, bias + o, y + o, shape); break;
    default: break;
  }
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void forwardWith(int64_t first, int64_t last, const float* x, const float* weight,
                                           const float* bias, float* y, const DenseShape& shape) {
  int64_t r = first;
  for (; r + kDotRows <= last; r += kDotRows) {
    dotRows<V, kDotRows>(x + r * shape.in, weight, bias, y + r * shape.out, shape);
  }
  switch (last - r) {
    case 3: dotRows<V, 3>(x + r * shape.in, weight, bias, y + r * shape.out, shape); break;
    case 2: dotRows<V, 2>(x + r * shape.in, weight, bias, y + r * shape.out, shape); break;
    case 1: dotRows<V, 1>(x + r * shape.in, weight, bias, y + r * shape.out, shape); break;
    default: break;
  }
}

/// C = A B's columns past the last whole vector (cols % kWidth of them), one sum at a time, in
/// the same order as the vector part: over `inner`, first to last.
ENSEMBLELAB_ALWAYS_INLINE void productTail(int64_t rows, int64_t inner, int64_t cols, const float* a, int64_t aRow,
                                           int64_t aInner, const float* b, int64_t bRow, float* c, int64_t cRow) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t column = cols - cols % kWidth; column < cols; ++column) {
      float sum = 0.f;
      for (int64_t i = 0; i < inner; ++i) sum += a[r * aRow + i * aInner] * b[i * bRow + column];
      c[r * cRow + column] = sum;
    }
  }
}

// AVX-512, AVX2 with FMA, and the x86-64 baseline, chosen at load time (CpuClones.h).
#define ENSEMBLELAB_DENSE_CLONES ENSEMBLELAB_CPU_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")

}  // namespace

ENSEMBLELAB_DENSE_CLONES void forwardRows(int64_t first, int64_t last, const float* x, const float* weight,
                                          const float* bias, float* y, const DenseShape& shape) {
  if (shape.wideRegisters) {
    forwardWith<panel_product::WideVector>(first, last, x, weight, bias, y, shape);
  } else {
    forwardWith<Vec>(first, last, x, weight, bias, y, shape);
  }
}

ENSEMBLELAB_DENSE_CLONES void inputGradientRows(int64_t first, int64_t last, const float* gradY, const float* weight,
                                                float* gradX, const DenseShape& shape) {
  // gradX's row r is gradY's row r (out values, contiguous) times W (out x in, rows of in).
  const float* a = gradY + first * shape.out;
  float* c = gradX + first * shape.in;
  panel_product::product(last - first, shape.out, shape.in, a, shape.out, 1, weight, shape.in, c, shape.in, false,
                         shape.wideRegisters);
  productTail(last - first, shape.out, shape.in, a, shape.out, 1, weight, shape.in, c, shape.in);
}

ENSEMBLELAB_DENSE_CLONES void weightGradientRows(int64_t first, int64_t last, const float* gradY, const float* x,
                                                 float* gradWeight, const DenseShape& shape) {
  // gradW's row o is gradY's column o (batch values, stride out) times x (batch x in).
  const float* a = gradY + first;
  float* c = gradWeight + first * shape.in;
  panel_product::product(last - first, shape.batch, shape.in, a, 1, shape.out, x, shape.in, c, shape.in, false,
                         shape.wideRegisters);
  productTail(last - first, shape.batch, shape.in, a, 1, shape.out, x, shape.in, c, shape.in);
}

}  // namespace ensemble::dense_loops
