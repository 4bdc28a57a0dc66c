// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's fused first layer, avg_pool2d(relu(conv2d(images, weight, bias, padding 1)), 2)
// for one-channel images, forward and backward: the kernels' source, compiled by nvcc in
// ConvReluPoolKernels.cu, and run on the CPU by TestCudaKernelsOnCpu (tests/CudaOnCpu.h)
// where there is no GPU.
//
// Unfused on an H200 (docs/gpu-reports/2026-11-26-NVIDIA-H200-kernel-profile.md), this layer
// was about a quarter of the stacked ensemble's step: cuDNN's one-channel convolution (92 us)
// and its separate bias add (90 us) each wrote the 103 MB conv output of 8 members, its weight
// gradient took 458 us and the pool's backward 241 us. Fused, the forward writes only the
// pooled quarter, and the backward recomputes the convolution from the images (nine
// multiply-adds a value, from a 4 x 4 window in registers) to know where ReLU passed, summing
// the weights' and the bias's gradients on the way, as the CPU's loops do
// (ConvReluPoolLoops.cpp). No tensor of the convolution's size is stored or read.
//
// Arithmetic: each convolution is the bias, then the nine taps in row order, each a fused
// multiply-add; the window is summed in avg_pool2d's order and times 0.25. The gradient
// sums are per thread, then a fixed tree per block (one block per channel and chunk of
// kImagesPerChunk images), then the chunks in order: the same bits on every run, whatever
// the GPU, with or without a CUDA graph. Results agree with cuDNN's unfused ops to float
// rounding (ensemble-lab-kernel-check).
#include <cstdint>

#include "core/models/ConvReluPoolKernels.h"
#include "core/models/CudaElements.cuh"
#include "core/models/TensorLayout.cuh"

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {
namespace conv_pool {

constexpr int kThreads = 256;
/// Images whose gradient one block sums (per channel); the chunks are then added in order.
constexpr int64_t kImagesPerChunk = 16;
/// Sums per channel in the backward pass: the nine taps' gradients, then the bias's.
constexpr int kSums = 10;
/// The forward grid's cap; its loop strides over the rest.
constexpr int64_t kMaxForwardBlocks = int64_t(65535) * 8;

__host__ __device__ inline int64_t chunkCount(const ConvPoolShape& shape) {
  return (shape.images + kImagesPerChunk - 1) / kImagesPerChunk;
}

inline unsigned forwardBlocks(const ConvPoolShape& shape) {
  const int64_t outputs = shape.images * shape.channels * (shape.height / 2) * (shape.width / 2);
  const int64_t blocks = (outputs + kThreads - 1) / kThreads;
  return unsigned(blocks < 1 ? 1 : (blocks < kMaxForwardBlocks ? blocks : kMaxForwardBlocks));
}

inline unsigned chunkSumBlocks(const ConvPoolShape& shape) {
  return unsigned((shape.channels * kSums + kThreads - 1) / kThreads);
}

/// Whether every index (the images, the pooled tensor and the forward's grid stride past
/// its end) fits 32 bits.
inline bool fitsInt32(const ConvPoolShape& shape) {
  return shape.images * shape.channels * shape.height * shape.width + kMaxForwardBlocks * kThreads <
         (int64_t(1) << 31);
}

/// The 4 x 4 pixels under pooled output (outRow, outColumn)'s four convolutions (padding 1:
/// zero outside the image).
template <typename Index>
__device__ __forceinline__ void loadWindow(const float* __restrict__ image, Index height, Index width, Index outRow,
                                           Index outColumn, float (&window)[4][4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const Index row = 2 * outRow - 1 + i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const Index column = 2 * outColumn - 1 + j;
      window[i][j] = (row >= 0 && row < height && column >= 0 && column < width) ? image[row * width + column] : 0.f;
    }
  }
}

/// The convolution at the window's pixel (1 + dy, 1 + dx).
__device__ __forceinline__ float convolveAt(const float (&window)[4][4], int dy, int dx, const float (&weight)[9],
                                            float bias) {
  float value = bias;
#pragma unroll
  for (int dh = 0; dh < 3; ++dh) {
#pragma unroll
    for (int dw = 0; dw < 3; ++dw) value = fmaf(weight[dh * 3 + dw], window[dy + dh][dx + dw], value);
  }
  return value;
}

__device__ __forceinline__ void loadFilter(const float* __restrict__ weight, const float* __restrict__ bias,
                                           int64_t channel, float (&filter)[9], float& channelBias) {
#pragma unroll
  for (int tap = 0; tap < 9; ++tap) filter[tap] = weight[channel * 9 + tap];
  channelBias = bias[channel];
}

/// One thread per pooled output, in the output layout's order (consecutive threads write
/// consecutive memory).
template <typename Out, typename Index>
__global__ void __launch_bounds__(kThreads)
    forwardKernel(const float* __restrict__ images, const float* __restrict__ weight, const float* __restrict__ bias,
                  Out* __restrict__ pooled, ConvPoolShape shape) {
  const Index channels = Index(shape.channels), height = Index(shape.height), width = Index(shape.width);
  const Index outHeight = height / 2, outWidth = width / 2;
  const Index total = Index(shape.images) * channels * outHeight * outWidth;
  for (Index index = Index(blockIdx.x) * Index(blockDim.x) + Index(threadIdx.x); index < total;
       index += Index(gridDim.x) * Index(blockDim.x)) {
    Index n, c, outRow, outColumn;
    coordinatesOf(index, channels, outHeight, outWidth, shape.channelsLast, n, c, outRow, outColumn);
    float filter[9], channelBias;
    loadFilter(weight, bias, c, filter, channelBias);
    float window[4][4];
    loadWindow(images + n * height * width, height, width, outRow, outColumn, window);
    float sum = 0.f;  // avg_pool2d's order: top row, then bottom row
    sum += relu(convolveAt(window, 0, 0, filter, channelBias));
    sum += relu(convolveAt(window, 0, 1, filter, channelBias));
    sum += relu(convolveAt(window, 1, 0, filter, channelBias));
    sum += relu(convolveAt(window, 1, 1, filter, channelBias));
    pooled[index] = fromFloat<Out>(sum * 0.25f);
  }
}

/// Block (chunk, channel): that channel's ten gradient sums over the chunk's images, into
/// scratch[chunk][channel][kSums]. Needs blockDim.x == kThreads.
template <typename Grad, typename Index>
__global__ void __launch_bounds__(kThreads)
    chunkSumsKernel(const float* __restrict__ images, const float* __restrict__ weight,
                    const float* __restrict__ bias, const Grad* __restrict__ gradPooled, float* __restrict__ scratch,
                    ConvPoolShape shape) {
  __shared__ float blockSums[kSums][kThreads];
  const Index chunk = Index(blockIdx.x), c = Index(blockIdx.y);
  const Index channels = Index(shape.channels), height = Index(shape.height), width = Index(shape.width);
  const Index outHeight = height / 2, outWidth = width / 2, plane = outHeight * outWidth;
  const Index first = chunk * Index(kImagesPerChunk);
  const Index rest = Index(shape.images) - first;
  const Index positions = (rest < Index(kImagesPerChunk) ? rest : Index(kImagesPerChunk)) * plane;
  float filter[9], channelBias;
  loadFilter(weight, bias, c, filter, channelBias);
  float sums[kSums];
#pragma unroll
  for (int k = 0; k < kSums; ++k) sums[k] = 0.f;
  for (Index position = Index(threadIdx.x); position < positions; position += Index(blockDim.x)) {
    const Index n = first + position / plane, inPlane = position % plane;
    const Index outRow = inPlane / outWidth, outColumn = inPlane % outWidth;
    // The pool's gradient, a quarter to each window pixel where ReLU passed (NaN passes).
    const float quarter =
        toFloat(gradPooled[offsetOf(n, c, outRow, outColumn, channels, outHeight, outWidth, shape.channelsLast)]) *
        0.25f;
    float window[4][4];
    loadWindow(images + n * height * width, height, width, outRow, outColumn, window);
#pragma unroll
    for (int dy = 0; dy < 2; ++dy) {
#pragma unroll
      for (int dx = 0; dx < 2; ++dx) {
        const float grad = convolveAt(window, dy, dx, filter, channelBias) <= 0.f ? 0.f : quarter;
#pragma unroll
        for (int dh = 0; dh < 3; ++dh) {
#pragma unroll
          for (int dw = 0; dw < 3; ++dw) sums[dh * 3 + dw] = fmaf(grad, window[dy + dh][dx + dw], sums[dh * 3 + dw]);
        }
        sums[9] += grad;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < kSums; ++k) blockSums[k][threadIdx.x] = sums[k];
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride) {
#pragma unroll
      for (int k = 0; k < kSums; ++k) blockSums[k][threadIdx.x] += blockSums[k][threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (int(threadIdx.x) < kSums) scratch[(int64_t(chunk) * channels + c) * kSums + threadIdx.x] = blockSums[threadIdx.x][0];
}

/// One thread per (channel, sum): the chunks' partial sums added in chunk order, written to
/// the weight's gradient ([channels][9]) or the bias's.
__global__ void __launch_bounds__(kThreads)
    addChunksKernel(const float* __restrict__ scratch, float* __restrict__ gradWeight, float* __restrict__ gradBias,
                    ConvPoolShape shape) {
  const int64_t perChunk = shape.channels * kSums;
  const int64_t index = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= perChunk) return;
  float sum = scratch[index];
  const int64_t chunks = chunkCount(shape);
  for (int64_t chunk = 1; chunk < chunks; ++chunk) sum += scratch[chunk * perChunk + index];
  const int64_t channel = index / kSums, k = index % kSums;
  if (k < 9) {
    gradWeight[channel * 9 + k] = sum;
  } else {
    gradBias[channel] = sum;
  }
}

}  // namespace conv_pool
}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
