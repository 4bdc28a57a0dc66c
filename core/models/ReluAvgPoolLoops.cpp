// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ReluAvgPoolLoops.h"

#include <algorithm>

#include "core/common/CpuClones.h"

// Built with -fno-trapping-math (core/CMakeLists.txt). Under GCC's default a comparison that
// may raise the invalid-operation flag (v <= 0 on a NaN) is not if-converted, so relu's
// select stayed a branch and no loop here vectorised for AVX2 or the baseline; only
// AVX-512's masked instructions got round it. On an AVX2 machine the pool then took 15% of
// the ensemble's step in scalar code. The flag lets the compiler assume that nobody reads
// the floating-point exception flags; every value computed stays the same.

namespace ensemble::pool_loops {
namespace {

// NaN stays NaN (v <= 0 is false for it), as in torch::relu. A select, not a branch, so the
// loops below vectorise.
inline float relu(float v) { return v <= 0.f ? 0.f : v; }

/// The gradient through relu then the pool: a quarter of the pooled gradient where relu
/// passed the input, else 0. Both operands are computed unconditionally (a conditional
/// load or division is control flow, which GCC does not vectorise); x * 0.25 is x / 4 bit
/// for bit, a power of two.
inline float reluPoolGradient(float input, float gradOutput) {
  const float quarter = gradOutput * 0.25f;
  return input <= 0.f ? 0.f : quarter;
}

// The loops are built for AVX-512, AVX2 and the x86-64 baseline, one of them chosen at load
// time (GCC's function multi-versioning): Debian builds for the baseline (SSE2), and the
// fused pool was a quarter of the CPU step. The arithmetic per element is the same in each.
#define ENSEMBLELAB_VECTOR_CLONES ENSEMBLELAB_CPU_CLONES("avx512f", "avx2", "default")

}  // namespace

ENSEMBLELAB_VECTOR_CLONES void forwardPlanes(int64_t first, int64_t last, const float* input,
                                             float* output, int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  for (int64_t plane = first; plane < last; ++plane) {
    const float* in = input + plane * height * width;
    float* out = output + plane * outHeight * outWidth;
    for (int64_t oh = 0; oh < outHeight; ++oh) {
      const float* top = in + 2 * oh * width;
      const float* bottom = top + width;
      float* row = out + oh * outWidth;
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        float sum = 0.f;  // the order avg_pool2d sums a window in
        sum += relu(top[2 * ow]);
        sum += relu(top[2 * ow + 1]);
        sum += relu(bottom[2 * ow]);
        sum += relu(bottom[2 * ow + 1]);
        row[ow] = sum / 4.f;
      }
    }
  }
}

ENSEMBLELAB_VECTOR_CLONES void backwardPlanes(int64_t first, int64_t last, const float* input,
                                              const float* gradOutput, float* gradInput,
                                              int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  for (int64_t plane = first; plane < last; ++plane) {
    const float* in = input + plane * height * width;
    const float* gradOut = gradOutput + plane * outHeight * outWidth;
    float* gradIn = gradInput + plane * height * width;
    for (int64_t h = 0; h < height; ++h) {
      const float* inRow = in + h * width;
      float* gradRow = gradIn + h * width;
      if (h / 2 >= outHeight) {  // an odd last row: outside every window
        for (int64_t w = 0; w < width; ++w) gradRow[w] = 0.f;
        continue;
      }
      const float* gradOutRow = gradOut + (h / 2) * outWidth;
      // threshold_backward keeps the gradient unless relu's result is <= 0. By window, so
      // the loop has no w / 2 gather and vectorises.
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        gradRow[2 * ow] = reluPoolGradient(inRow[2 * ow], gradOutRow[ow]);
        gradRow[2 * ow + 1] = reluPoolGradient(inRow[2 * ow + 1], gradOutRow[ow]);
      }
      for (int64_t w = 2 * outWidth; w < width; ++w) gradRow[w] = 0.f;
    }
  }
}

/// Channels-last: a pixel's channels lie side by side, so each output pixel sums the channel
/// vectors of its four input pixels (the channel loop is what the compiler vectorises). Rows
/// of output pixels (image x output row) are the parallel unit.
ENSEMBLELAB_VECTOR_CLONES void forwardRowsChannelsLast(int64_t first, int64_t last,
                                                       const float* input, float* output,
                                                       int64_t channels, int64_t height,
                                                       int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  for (int64_t outRow = first; outRow < last; ++outRow) {
    const int64_t image = outRow / outHeight, oh = outRow % outHeight;
    const float* top = input + (image * height + 2 * oh) * width * channels;
    const float* bottom = top + width * channels;
    float* out = output + outRow * outWidth * channels;
    for (int64_t ow = 0; ow < outWidth; ++ow) {
      const float* topLeft = top + 2 * ow * channels;
      const float* topRight = topLeft + channels;
      const float* bottomLeft = bottom + 2 * ow * channels;
      const float* bottomRight = bottomLeft + channels;
      float* pixel = out + ow * channels;
      for (int64_t c = 0; c < channels; ++c) {
        float sum = 0.f;  // the order avg_pool2d sums a window in, as in the NCHW kernel
        sum += relu(topLeft[c]);
        sum += relu(topRight[c]);
        sum += relu(bottomLeft[c]);
        sum += relu(bottomRight[c]);
        pixel[c] = sum / 4.f;
      }
    }
  }
}

ENSEMBLELAB_VECTOR_CLONES void backwardRowsChannelsLast(int64_t first, int64_t last,
                                                        const float* input, const float* gradOutput,
                                                        float* gradInput, int64_t channels,
                                                        int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  const int64_t rowValues = width * channels;
  for (int64_t inRow = first; inRow < last; ++inRow) {
    const int64_t image = inRow / height, h = inRow % height;
    const float* in = input + inRow * rowValues;
    float* gradIn = gradInput + inRow * rowValues;
    if (h / 2 >= outHeight) {  // an odd last row: outside every window
      std::fill(gradIn, gradIn + rowValues, 0.f);
      continue;
    }
    const float* gradOutRow = gradOutput + (image * outHeight + h / 2) * outWidth * channels;
    for (int64_t w = 0; w < 2 * outWidth; ++w) {
      const float* gradOutPixel = gradOutRow + (w / 2) * channels;
      const float* inPixel = in + w * channels;
      float* gradPixel = gradIn + w * channels;
      for (int64_t c = 0; c < channels; ++c) {
        gradPixel[c] = reluPoolGradient(inPixel[c], gradOutPixel[c]);
      }
    }
    std::fill(gradIn + 2 * outWidth * channels, gradIn + rowValues, 0.f);
  }
}

}  // namespace ensemble::pool_loops
