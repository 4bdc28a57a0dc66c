// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's fused avg_pool2d(relu(x), 2): launchers of the CUDA kernels in
// ReluAvgPoolKernels.cu (compiled by nvcc in a CUDA build; FusedLayersCuda.cpp wires them
// into autograd). Plain C++ on both sides, no LibTorch or CUDA headers, so nvcc compiles
// only the kernels. The arithmetic is the unfused ops' own (core/models/ReluAvgPool.h).
#include <cstdint>

namespace ensemble::kernels {

enum class PoolElement { Float32, BFloat16, Float16 };

/// An input of `images` x `channels` x `height` x `width`, NCHW or channels-last (NHWC) in
/// memory; the output is [images, channels, height / 2, width / 2] in the same layout.
struct PoolShape {
  int64_t images, channels, height, width;
  bool channelsLast;
};

/// Queue the kernels on `stream` (a cudaStream_t). Both return the CUDA error code of the
/// launch (0: none).
int launchReluAvgPoolForward(const void* input, void* output, const PoolShape& shape, PoolElement element,
                             void* stream);
int launchReluAvgPoolBackward(const void* input, const void* gradOutput, void* gradInput, const PoolShape& shape,
                              PoolElement element, void* stream);

}  // namespace ensemble::kernels
