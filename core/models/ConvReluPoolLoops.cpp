// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ConvReluPoolLoops.h"

#include <cstring>

#include "core/common/CpuClones.h"
#include "core/common/FloatVector.h"

// Built with -fno-trapping-math and -ffp-contract=fast (core/CMakeLists.txt): relu's compare
// becomes a vector select, and `acc += w * x` one fused multiply-add where the CPU has it.
// Results differ from LibTorch's convolution in the last bits (another summation order);
// they are the same for any number of threads (ConvReluPool.cpp sums the image chunks in
// order).

namespace ensemble::conv_pool_loops {
namespace {

using Vec = FloatVector;
static_assert(kFloatVectorWidth == kChannelBlock, "a channel block is one vector");
inline Vec load(const float* from) { return loadFloats(from); }
inline void store(float* to, Vec v) { storeFloats(to, v); }

/// torch::relu's rule per lane: v <= 0 gives 0, anything else (NaN included) stays.
inline Vec relu(Vec v) {
  const Vec zero{};
  return v <= zero ? zero : v;
}

/// The convolution at the pixel whose top-left tap is `x`: bias plus the nine taps.
inline Vec convolve(const float* x, int64_t rowStride, const Vec (&weights)[9], Vec bias) {
  Vec v = bias;
  for (int dh = 0; dh < 3; ++dh) {
    // Vector times scalar: one broadcast (a hand-made splat, `Vec{} + x`, is an add first:
    // 0 + x must turn -0 into +0, so the compiler keeps it).
    for (int dw = 0; dw < 3; ++dw) v += weights[dh * 3 + dw] * x[dh * rowStride + dw];
  }
  return v;
}

// AVX-512, AVX2 with FMA, and the x86-64 baseline, chosen at load time (as for the pool's
// loops, ReluAvgPoolLoops.cpp).
#define ENSEMBLELAB_CONV_CLONES ENSEMBLELAB_CPU_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")

}  // namespace

ENSEMBLELAB_CONV_CLONES void forwardImages(int64_t first, int64_t last, const float* padded,
                                           const float* weightByTap, const float* bias,
                                           float* pooled, const ConvPoolShape& shape) {
  const int64_t rowStride = shape.width + 2, imageSize = (shape.height + 2) * rowStride;
  const int64_t outHeight = shape.height / 2, outWidth = shape.width / 2, channels = shape.channels;
  for (int64_t image = first; image < last; ++image) {
    const float* in = padded + image * imageSize;
    float* out = pooled + image * outHeight * outWidth * channels;
    for (int64_t block = 0; block < channels; block += kChannelBlock) {
      Vec weights[9];
      for (int tap = 0; tap < 9; ++tap) weights[tap] = load(weightByTap + tap * channels + block);
      const Vec b = load(bias + block);
      for (int64_t oh = 0; oh < outHeight; ++oh) {
        for (int64_t ow = 0; ow < outWidth; ++ow) {
          const float* window = in + 2 * oh * rowStride + 2 * ow;
          Vec sum{};  // the order avg_pool2d sums a window in: top row, then bottom row
          sum += relu(convolve(window, rowStride, weights, b));
          sum += relu(convolve(window + 1, rowStride, weights, b));
          sum += relu(convolve(window + rowStride, rowStride, weights, b));
          sum += relu(convolve(window + rowStride + 1, rowStride, weights, b));
          store(out + (oh * outWidth + ow) * channels + block, sum * 0.25f);
        }
      }
    }
  }
}

ENSEMBLELAB_CONV_CLONES void backwardImages(int64_t first, int64_t last, const float* padded,
                                            const float* weightByTap, const float* bias,
                                            const float* gradPooled, float* gradWeightByTap,
                                            float* gradBias, const ConvPoolShape& shape) {
  const int64_t rowStride = shape.width + 2, imageSize = (shape.height + 2) * rowStride;
  const int64_t outHeight = shape.height / 2, outWidth = shape.width / 2, channels = shape.channels;
  const Vec zero{};
  for (int64_t block = 0; block < channels; block += kChannelBlock) {
    Vec weights[9], gradWeights[9];
    for (int tap = 0; tap < 9; ++tap) {
      weights[tap] = load(weightByTap + tap * channels + block);
      gradWeights[tap] = zero;
    }
    const Vec b = load(bias + block);
    Vec gradB = zero;
    for (int64_t image = first; image < last; ++image) {
      const float* in = padded + image * imageSize;
      const float* gradOut = gradPooled + image * outHeight * outWidth * channels;
      for (int64_t oh = 0; oh < outHeight; ++oh) {
        for (int64_t ow = 0; ow < outWidth; ++ow) {
          // The pool's gradient, a quarter to each window pixel where relu passed (as the
          // fused pool's backward computes it).
          const Vec quarter = load(gradOut + (oh * outWidth + ow) * channels + block) * 0.25f;
          const float* window = in + 2 * oh * rowStride + 2 * ow;
          const float* const pixels[4] = {window, window + 1, window + rowStride, window + rowStride + 1};
          for (const float* x : pixels) {
            const Vec grad = convolve(x, rowStride, weights, b) <= zero ? zero : quarter;
            gradB += grad;
            for (int dh = 0; dh < 3; ++dh) {
              for (int dw = 0; dw < 3; ++dw)
                gradWeights[dh * 3 + dw] += grad * x[dh * rowStride + dw];
            }
          }
        }
      }
    }
    for (int tap = 0; tap < 9; ++tap)
      store(gradWeightByTap + tap * channels + block, gradWeights[tap]);
    store(gradBias + block, gradB);
  }
}

}  // namespace ensemble::conv_pool_loops
