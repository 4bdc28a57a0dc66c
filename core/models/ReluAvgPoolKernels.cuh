// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// avg_pool2d(relu(x), 2) on the GPU, forward and backward, one pass each: the kernels'
// source, compiled by nvcc in ReluAvgPoolKernels.cu and run on the CPU by
// TestCudaKernelsOnCpu. Profiled on an H100 (issue 29), LibTorch's avg_pool2d backward alone
// took a quarter of the stacked ensemble's GPU time. Here each output element reads its 2x2 window once (forward), and
// each input element reads itself and its window's gradient once (backward): memory-bound
// element-wise kernels. Their index arithmetic is 32-bit wherever the tensor allows: a
// 64-bit division is a long software routine on the GPU, and with three of them per element
// it made the backward kernel compute-bound (180 us for the stacked conv1's 103 MB on an
// H200, against about 50 us to move its bytes).
// The arithmetic is avg_pool2d's and threshold_backward's own, so results are identical to
// the unfused ops: the window summed in row order in float (LibTorch's accumulate type for
// bf16 and fp16), divided by 4, then rounded to the element type; the gradient divided by
// 4 in float, rounded, and zero where the input is <= 0.
#include <cstdint>

#include "core/models/CudaElements.cuh"
#include "core/models/ReluAvgPoolKernels.h"
#include "core/models/TensorLayout.cuh"

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {
namespace relu_pool {

constexpr int kThreads = 256;

template <typename T, typename Index>
__global__ void forwardKernel(const T* __restrict__ input, T* __restrict__ output, PoolShape shape) {
  const Index channels = Index(shape.channels), height = Index(shape.height), width = Index(shape.width);
  const Index outHeight = height / 2, outWidth = width / 2;
  const Index total = Index(shape.images) * channels * outHeight * outWidth;
  for (Index index = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); index < total;
       index += Index(gridDim.x) * Index(blockDim.x)) {
    Index n, c, oh, ow;
    coordinatesOf(index, channels, outHeight, outWidth, shape.channelsLast, n, c, oh, ow);
    const auto at = [&](Index h, Index w) {
      return relu(toFloat(input[offsetOf(n, c, h, w, channels, height, width, shape.channelsLast)]));
    };
    float sum = 0.f;  // avg_pool2d's order: rows, then columns
    sum += at(2 * oh, 2 * ow);
    sum += at(2 * oh, 2 * ow + 1);
    sum += at(2 * oh + 1, 2 * ow);
    sum += at(2 * oh + 1, 2 * ow + 1);
    output[index] = fromFloat<T>(sum / 4.f);
  }
}

template <typename T, typename Index>
__global__ void backwardKernel(const T* __restrict__ input, const T* __restrict__ gradOutput,
                               T* __restrict__ gradInput, PoolShape shape) {
  const Index channels = Index(shape.channels), height = Index(shape.height), width = Index(shape.width);
  const Index outHeight = height / 2, outWidth = width / 2;
  const Index total = Index(shape.images) * channels * height * width;
  for (Index index = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); index < total;
       index += Index(gridDim.x) * Index(blockDim.x)) {
    Index n, c, h, w;
    coordinatesOf(index, channels, height, width, shape.channelsLast, n, c, h, w);
    if (h / 2 >= outHeight || w / 2 >= outWidth) {  // an odd last row or column: outside every window
      gradInput[index] = fromFloat<T>(0.f);
      continue;
    }
    const float pooled =
        toFloat(gradOutput[offsetOf(n, c, h / 2, w / 2, channels, outHeight, outWidth, shape.channelsLast)]);
    const T gradient = fromFloat<T>(pooled / 4.f);  // avg_pool2d's gradient, in the element type
    gradInput[index] = toFloat(input[index]) <= 0.f ? fromFloat<T>(0.f) : gradient;
  }
}

/// Enough blocks to fill the GPU several times over; the loops stride over the rest.
inline unsigned blocksFor(int64_t elements) {
  const int64_t blocks = (elements + kThreads - 1) / kThreads;
  return unsigned(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8);
}

/// Whether every index into the input fits 32 bits, with room for the grid-stride step past the end.
inline bool fitsInt32(const PoolShape& shape) {
  return shape.images * shape.channels * shape.height * shape.width + int64_t(65535) * 8 * kThreads < (int64_t(1) << 31);
}

}  // namespace relu_pool
}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
