// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/DenseLoops.h"

#include <algorithm>
#include <vector>

#include "core/common/CpuClones.h"
#include "core/models/PanelProduct.h"

// Built with -ffp-contract=fast (core/CMakeLists.txt): `acc += a * b` is one fused multiply-add
// where the CPU has it. Results differ from the BLAS's in the last bits (another order of the
// same sums).

namespace ensemble::dense_loops {
namespace {

using panel_product::kWidth;

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

/// The forward pass's inner dimension (`in`) in blocks of this many: one panel's strip of x^T
/// (256 x 32 floats, 32 KB) then stays in the nearest cache while W's rows stream past. Measured
/// on the CNN's 128 x 3136 x 256 on one Emerald Rapids core: 53 GFLOP/s at 256 and 512, 38 at
/// 128, 42 unblocked (medians of 9, 2026-11-27).
constexpr int64_t kInnerBlock = 256;

/// 16 x 16: a tile's rows and columns both stay within a few cache lines.
constexpr int64_t kTransposeTile = 16;

// AVX-512, AVX2 with FMA, and the x86-64 baseline, chosen at load time (CpuClones.h).
#define ENSEMBLELAB_DENSE_CLONES ENSEMBLELAB_CPU_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")

}  // namespace

ENSEMBLELAB_DENSE_CLONES void transposeColumns(int64_t first, int64_t last, const float* source, int64_t rows,
                                               int64_t cols, const float* rowBias, float* target) {
  for (int64_t c0 = first; c0 < last; c0 += kTransposeTile) {
    const int64_t cEnd = std::min(last, c0 + kTransposeTile);
    for (int64_t r0 = 0; r0 < rows; r0 += kTransposeTile) {
      const int64_t rEnd = std::min(rows, r0 + kTransposeTile);
      for (int64_t c = c0; c < cEnd; ++c) {
        if (rowBias) {
          for (int64_t r = r0; r < rEnd; ++r) target[c * rows + r] = rowBias[r] + source[r * cols + c];
        } else {
          for (int64_t r = r0; r < rEnd; ++r) target[c * rows + r] = source[r * cols + c];
        }
      }
    }
  }
}

ENSEMBLELAB_DENSE_CLONES void forwardFeatures(int64_t first, int64_t last, const float* inputT, const float* weight,
                                              float* outputT, const DenseShape& shape) {
  // outputT's row o is W's row o (in values, contiguous) times x^T (in x batch, rows of batch).
  // Each block of the inner dimension is summed on its own, and the blocks' sums then in turn:
  // one sum in order over all 3136 of the CNN's terms was 2.5x as far from LibTorch's as the
  // dot products' 16 partial sums had been (TestModels), where two levels are nearer than both.
  // The first block's sums go straight to the output; a scratch holds each later block's.
  const int64_t rows = last - first, batch = shape.batch;
  const float* a = weight + first * shape.in;
  float* c = outputT + first * batch;
  if (shape.in == 0) std::fill(c, c + rows * batch, 0.f);
  std::vector<float> blockSums(shape.in > kInnerBlock ? std::size_t(rows * batch) : 0);
  for (int64_t block = 0; block < shape.in; block += kInnerBlock) {
    const int64_t inner = std::min(kInnerBlock, shape.in - block);
    const float* const b = inputT + block * batch;
    float* const sums = block == 0 ? c : blockSums.data();
    panel_product::product(rows, inner, batch, a + block, shape.in, 1, b, batch, sums, batch, false,
                           shape.wideRegisters);
    productTail(rows, inner, batch, a + block, shape.in, 1, b, batch, sums, batch);
    if (block > 0) {
      for (int64_t i = 0; i < rows * batch; ++i) c[i] += blockSums[std::size_t(i)];
    }
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
