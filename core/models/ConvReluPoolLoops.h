// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU loops of the fused first layer (ConvReluPool.h): a 3x3 convolution of one-channel
// images (padding 1), ReLU and a 2x2 average pool in one pass, and its weight gradient
// recomputed from the images in one pass back. Plain C++ without LibTorch, built with flags
// of their own (core/CMakeLists.txt), each over a range of images so a caller can split them
// over threads.
#include <cstdint>

namespace ensemble::conv_pool_loops {

/// Output channels are processed in blocks of this many (one AVX register of floats).
constexpr int64_t kChannelBlock = 8;

/// The sizes shared by every call on one batch.
struct ConvPoolShape {
  int64_t height = 0, width = 0;  ///< of the images and of the convolution's output
  int64_t channels = 0;           ///< output channels, a multiple of kChannelBlock
  bool wideRegisters = false;     ///< panel_product::useWideRegisters(): 16 channels at a time
};

/// Images [first, last) into `pooled`. `padded`: the images with a border of zeros, each
/// (height + 2) x (width + 2). `weightByTap`: [9][channels], tap = row * 3 + column.
/// `pooled`: channels-last, [images][height / 2][width / 2][channels].
void forwardImages(int64_t first, int64_t last, const float* padded, const float* weightByTap,
                   const float* bias, float* pooled, const ConvPoolShape& shape);

/// The gradient of the weights ([9][channels]) and the bias over images [first, last),
/// written (not added) to `gradWeightByTap` and `gradBias`. The convolution is computed again
/// to know where ReLU passed. `gradPooled` is channels-last like `pooled`.
void backwardImages(int64_t first, int64_t last, const float* padded, const float* weightByTap,
                    const float* bias, const float* gradPooled, float* gradWeightByTap,
                    float* gradBias, const ConvPoolShape& shape);

}  // namespace ensemble::conv_pool_loops
