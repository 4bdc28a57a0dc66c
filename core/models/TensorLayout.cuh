// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where element (n, c, h, w) of a 4-d tensor lies in memory, NCHW or channels-last (NHWC),
// for our CUDA kernels (their source also runs on the CPU in tests, tests/CudaOnCpu.h).
// `Index` is int32_t wherever the tensor allows: a 64-bit division is a long software
// routine on a GPU.
#include "core/models/CudaElements.cuh"

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {

/// Offset of element (n, c, h, w) in a tensor of `channels` x `height` x `width` per image.
template <typename Index>
__device__ __forceinline__ Index offsetOf(Index n, Index c, Index h, Index w, Index channels, Index height, Index width,
                                          bool channelsLast) {
  return channelsLast ? ((n * height + h) * width + w) * channels + c : ((n * channels + c) * height + h) * width + w;
}

/// Splits a flat position in the layout's own order into (n, c, h, w), so that consecutive
/// threads touch consecutive memory in both layouts.
template <typename Index>
__device__ __forceinline__ void coordinatesOf(Index index, Index channels, Index height, Index width, bool channelsLast,
                                              Index& n, Index& c, Index& h, Index& w) {
  if (channelsLast) {
    c = index % channels;
    index /= channels;
    w = index % width;
    index /= width;
    h = index % height;
    n = index / height;
  } else {
    w = index % width;
    index /= width;
    h = index % height;
    index /= height;
    c = index % channels;
    n = index / channels;
  }
}

}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
