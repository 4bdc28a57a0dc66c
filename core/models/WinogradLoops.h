// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU loops of the Winograd convolution (WinogradConv.h): a 3x3 convolution, stride 1,
// padding 1, of channels-last images, as Winograd's F(2x2, 3x3). Each 2x2 block of the output
// ("tile") comes from the 4x4 block of the input around it, and per tile the convolution
// becomes 16 element-wise products of transformed 4x4 blocks, summed over input channels:
// 16 small matrix products per block of tiles, 2.25x fewer multiplications than the direct
// convolution (16 per tile instead of 36). The backward pass uses the same transforms (the
// input's gradient and the weights' gradient are matrix products of the same operands), and
// transforms the input again instead of storing it.
//
// Plain C++ without LibTorch, built with flags of their own (core/CMakeLists.txt), each call
// over a range of images so a caller can split them over threads.
#include <cstdint>

namespace ensemble::winograd_loops {

/// Channels, in and out, must be multiples of this (one AVX register of floats).
constexpr int64_t kChannelBlock = 8;

/// The transformed 4x4 blocks: 16 "frequencies" per tile, per filter.
constexpr int64_t kFrequencies = 16;

/// The sizes shared by every call on one batch.
struct WinogradShape {
  int64_t height = 0, width = 0;            ///< of the images and of the output
  int64_t inChannels = 0, outChannels = 0;  ///< multiples of kChannelBlock
  bool wideRegisters = false;               ///< panel_product::useWideRegisters()
  int64_t tilesHigh() const { return (height + 1) / 2; }
  int64_t tilesWide() const { return (width + 1) / 2; }
  int64_t tilesPerImage() const { return tilesHigh() * tilesWide(); }
};

/// The filters, transformed once per call: `weight` is LibTorch's [out][in][3][3];
/// `transformed` is [16][in][out] (forward) and `transposed` [16][out][in] (the input's
/// gradient).
void transformWeights(const float* weight, float* transformed, float* transposed,
                      const WinogradShape& shape);

/// The convolution of images [first, last) plus `bias`. `input` [images][height][width][in]
/// and `output` [images][height][width][out], channels-last.
void forwardImages(int64_t first, int64_t last, const float* input, const float* transformed,
                   const float* bias, float* output, const WinogradShape& shape);

/// The same convolution, then ReLU and a 2x2 average pool (avg_pool2d(relu(conv), 2), floor),
/// without the convolution's pixels ever in memory: a tile's 2x2 outputs are one pooling window.
/// `pooledOutput` [images][height / 2][width / 2][out], channels-last, has the bits of
/// ReluAvgPoolLoops on forwardImages' output. Where `reluMask` is not null ([images][height]
/// [width][out / 8] bytes), each value a window covers gets ReLU's mask there, a bit set where
/// the value is <= 0 (channel c at bit c % 8 of the pixel's byte c / 8): what
/// backwardImagesReluPool needs, a thirty-second of the output's bytes.
void forwardImagesReluPool(int64_t first, int64_t last, const float* input, const float* transformed,
                           const float* bias, float* pooledOutput, uint8_t* reluMask, const WinogradShape& shape);

/// Backward over images [first, last): the input's gradient for those images is written to
/// `gradInput` (channels-last like `input`); the transformed weights' gradient summed over
/// them to `gradTransformed` ([16][in][out]) and the bias's to `gradBias` (written, not
/// added).
void backwardImages(int64_t first, int64_t last, const float* input, const float* transposed,
                    const float* gradOutput, float* gradInput, float* gradTransformed,
                    float* gradBias, const WinogradShape& shape);

/// backwardImages through forwardImagesReluPool: from the pooled output's gradient
/// (`gradPooled`, channels-last like pooledOutput) and the forward's `reluMask`.
void backwardImagesReluPool(int64_t first, int64_t last, const float* input, const float* transposed,
                            const float* gradPooled, const uint8_t* reluMask, float* gradInput,
                            float* gradTransformed, float* gradBias, const WinogradShape& shape);

/// The weights' gradient ([out][in][3][3], LibTorch's layout) from the transformed weights'
/// gradient ([16][in][out]): the transpose of transformWeights' map.
void weightGradient(const float* gradTransformed, float* gradWeight, const WinogradShape& shape);

}  // namespace ensemble::winograd_loops
