// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ConvReluPoolLoops.h"

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

/// torch::relu's rule per lane: v <= 0 gives 0, anything else (NaN included) stays.
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE V relu(V v) {
  const V zero{};
  return v <= zero ? zero : v;
}

/// The convolution at the pixel whose top-left tap is `x`: bias plus the nine taps.
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE V convolve(const float* x, int64_t rowStride, const V (&weights)[9], V bias) {
  V v = bias;
  for (int dh = 0; dh < 3; ++dh) {
    // Vector times scalar: one broadcast (a hand-made splat, `V{} + x`, is an add first:
    // 0 + x must turn -0 into +0, so the compiler keeps it).
    for (int dw = 0; dw < 3; ++dw) v += weights[dh * 3 + dw] * x[dh * rowStride + dw];
  }
  return v;
}

/// Whether the channels go 16 at a time (AVX-512's registers, where the CPU has them and 16
/// divides the channels) rather than 8. Each lane computes what it would in either width, so
/// the width changes no number; 16 lanes halve the broadcasts of the images' pixels, which
/// every lane shares.
inline bool wideBlocks(const ConvPoolShape& shape) {
  return shape.wideRegisters && shape.channels % kLanes<WideFloatVector> == 0;
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void forwardWith(int64_t first, int64_t last, const float* padded, const float* weightByTap,
                                           const float* bias, float* pooled, const ConvPoolShape& shape) {
  const int64_t rowStride = shape.width + 2, imageSize = (shape.height + 2) * rowStride;
  const int64_t outHeight = shape.height / 2, outWidth = shape.width / 2, channels = shape.channels;
  for (int64_t image = first; image < last; ++image) {
    const float* in = padded + image * imageSize;
    float* out = pooled + image * outHeight * outWidth * channels;
    for (int64_t block = 0; block < channels; block += kLanes<V>) {
      V weights[9];
      for (int tap = 0; tap < 9; ++tap) weights[tap] = loadLanes<V>(weightByTap + tap * channels + block);
      const V b = loadLanes<V>(bias + block);
      for (int64_t oh = 0; oh < outHeight; ++oh) {
        for (int64_t ow = 0; ow < outWidth; ++ow) {
          const float* window = in + 2 * oh * rowStride + 2 * ow;
          V sum{};  // the order avg_pool2d sums a window in: top row, then bottom row
          sum += relu(convolve(window, rowStride, weights, b));
          sum += relu(convolve(window + 1, rowStride, weights, b));
          sum += relu(convolve(window + rowStride, rowStride, weights, b));
          sum += relu(convolve(window + rowStride + 1, rowStride, weights, b));
          storeLanes<V>(out + (oh * outWidth + ow) * channels + block, sum * 0.25f);
        }
      }
    }
  }
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void backwardWith(int64_t first, int64_t last, const float* padded, const float* weightByTap,
                                            const float* bias, const float* gradPooled, float* gradWeightByTap,
                                            float* gradBias, const ConvPoolShape& shape) {
  const int64_t rowStride = shape.width + 2, imageSize = (shape.height + 2) * rowStride;
  const int64_t outHeight = shape.height / 2, outWidth = shape.width / 2, channels = shape.channels;
  const V zero{};
  for (int64_t block = 0; block < channels; block += kLanes<V>) {
    V weights[9], gradWeights[9];
    for (int tap = 0; tap < 9; ++tap) {
      weights[tap] = loadLanes<V>(weightByTap + tap * channels + block);
      gradWeights[tap] = zero;
    }
    const V b = loadLanes<V>(bias + block);
    V gradB = zero;
    for (int64_t image = first; image < last; ++image) {
      const float* in = padded + image * imageSize;
      const float* gradOut = gradPooled + image * outHeight * outWidth * channels;
      for (int64_t oh = 0; oh < outHeight; ++oh) {
        for (int64_t ow = 0; ow < outWidth; ++ow) {
          // The pool's gradient, a quarter to each window pixel where relu passed (as the
          // fused pool's backward computes it).
          const V quarter = loadLanes<V>(gradOut + (oh * outWidth + ow) * channels + block) * 0.25f;
          const float* window = in + 2 * oh * rowStride + 2 * ow;
          const float* const pixels[4] = {window, window + 1, window + rowStride, window + rowStride + 1};
          for (const float* x : pixels) {
            const V grad = convolve(x, rowStride, weights, b) <= zero ? zero : quarter;
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
      storeLanes<V>(gradWeightByTap + tap * channels + block, gradWeights[tap]);
    storeLanes<V>(gradBias + block, gradB);
  }
}

// AVX-512, AVX2 with FMA, and the x86-64 baseline, chosen at load time (as for the pool's
// loops, ReluAvgPoolLoops.cpp).
#define ENSEMBLELAB_CONV_CLONES ENSEMBLELAB_CPU_CLONES("arch=x86-64-v4", "arch=x86-64-v3", "default")

}  // namespace

ENSEMBLELAB_CONV_CLONES void forwardImages(int64_t first, int64_t last, const float* padded,
                                           const float* weightByTap, const float* bias,
                                           float* pooled, const ConvPoolShape& shape) {
  if (wideBlocks(shape)) {
    forwardWith<WideFloatVector>(first, last, padded, weightByTap, bias, pooled, shape);
  } else {
    forwardWith<Vec>(first, last, padded, weightByTap, bias, pooled, shape);
  }
}

ENSEMBLELAB_CONV_CLONES void backwardImages(int64_t first, int64_t last, const float* padded,
                                            const float* weightByTap, const float* bias,
                                            const float* gradPooled, float* gradWeightByTap,
                                            float* gradBias, const ConvPoolShape& shape) {
  if (wideBlocks(shape)) {
    backwardWith<WideFloatVector>(first, last, padded, weightByTap, bias, gradPooled, gradWeightByTap, gradBias,
                                  shape);
  } else {
    backwardWith<Vec>(first, last, padded, weightByTap, bias, gradPooled, gradWeightByTap, gradBias, shape);
  }
}

}  // namespace ensemble::conv_pool_loops
