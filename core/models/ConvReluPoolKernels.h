// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's fused first layer, avg_pool2d(relu(conv2d(images, weight, bias, padding 1)), 2)
// for one-channel images: launchers of the CUDA kernels in ConvReluPoolKernels.cu (their
// source is ConvReluPoolKernels.cuh). Plain C++ on both sides, no LibTorch or CUDA headers.
#include <cstdint>

#include "core/models/ReluAvgPoolKernels.h"

namespace ensemble::kernels {

/// `images` one-channel images of `height` x `width`, convolved into `channels` channels and
/// pooled to [images, channels, height / 2, width / 2], NCHW or channels-last in memory.
struct ConvPoolShape {
  int64_t images, channels, height, width;
  bool channelsLast;
};

/// Floats of scratch memory the backward pass needs (its per-chunk partial sums).
int64_t convReluPoolScratchFloats(const ConvPoolShape& shape);

/// `images` [images][height][width], `weight` [channels][9] (tap = row * 3 + column) and
/// `bias` [channels], all float; `pooled` of `element`. Queued on `stream` (a cudaStream_t);
/// both return the CUDA error code of the launch (0: none).
int launchConvReluPoolForward(const float* images, const float* weight, const float* bias, void* pooled,
                              const ConvPoolShape& shape, PoolElement element, void* stream);
/// The gradients of the weight ([channels][9]) and the bias from `gradPooled` (laid out and
/// typed as `pooled`), written (not added); `scratch` holds convReluPoolScratchFloats floats.
int launchConvReluPoolBackward(const float* images, const float* weight, const float* bias, const void* gradPooled,
                               float* scratch, float* gradWeight, float* gradBias, const ConvPoolShape& shape,
                               PoolElement element, void* stream);

}  // namespace ensemble::kernels
