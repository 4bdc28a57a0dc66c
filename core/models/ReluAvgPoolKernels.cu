// SPDX-License-Identifier: GPL-3.0-or-later
// avg_pool2d(relu(x), 2) on the GPU, forward and backward, one pass each. Profiled on an
// H100 (issue 29), LibTorch's avg_pool2d backward alone took a quarter of the stacked
// ensemble's GPU time. Here each output element reads its 2x2 window once (forward), and
// each input element reads itself and its window's gradient once (backward): memory-bound
// element-wise kernels. Their index arithmetic is 32-bit wherever the tensor allows: a
// 64-bit division is a long software routine on the GPU, and with three of them per element
// it made the backward kernel compute-bound (180 us for the stacked conv1's 103 MB on an
// H200, against about 50 us to move its bytes).
// The arithmetic is avg_pool2d's and threshold_backward's own, so results are identical to
// the unfused ops: the window summed in row order in float (LibTorch's accumulate type for
// bf16 and fp16), divided by 4, then rounded to the element type; the gradient divided by
// 4 in float, rounded, and zero where the input is <= 0.
#include <cuda_runtime.h>

#include "core/models/CudaElements.cuh"
#include "core/models/ReluAvgPoolKernels.h"
#include "core/models/TensorLayout.cuh"

namespace ensemble::kernels {
namespace {

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
unsigned blocksFor(int64_t elements) {
  const int64_t blocks = (elements + kThreads - 1) / kThreads;
  return unsigned(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8);
}

/// Whether every index into the input fits 32 bits, with room for the grid-stride step past the end.
bool fitsInt32(const PoolShape& shape) {
  return shape.images * shape.channels * shape.height * shape.width + int64_t(65535) * 8 * kThreads < (int64_t(1) << 31);
}

template <typename T>
int forward(const void* input, void* output, const PoolShape& shape, cudaStream_t stream) {
  const int64_t outputs = shape.images * shape.channels * (shape.height / 2) * (shape.width / 2);
  const auto kernel = fitsInt32(shape) ? forwardKernel<T, int32_t> : forwardKernel<T, int64_t>;
  kernel<<<blocksFor(outputs), kThreads, 0, stream>>>(static_cast<const T*>(input), static_cast<T*>(output), shape);
  return int(cudaGetLastError());
}

template <typename T>
int backward(const void* input, const void* gradOutput, void* gradInput, const PoolShape& shape,
             cudaStream_t stream) {
  const int64_t inputs = shape.images * shape.channels * shape.height * shape.width;
  const auto kernel = fitsInt32(shape) ? backwardKernel<T, int32_t> : backwardKernel<T, int64_t>;
  kernel<<<blocksFor(inputs), kThreads, 0, stream>>>(static_cast<const T*>(input), static_cast<const T*>(gradOutput),
                                                     static_cast<T*>(gradInput), shape);
  return int(cudaGetLastError());
}

}  // namespace

int launchReluAvgPoolForward(const void* input, void* output, const PoolShape& shape, PoolElement element,
                             void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (element) {
    case PoolElement::Float32: return forward<float>(input, output, shape, s);
    case PoolElement::BFloat16: return forward<BFloat16Element>(input, output, shape, s);
    case PoolElement::Float16: return forward<Float16Element>(input, output, shape, s);
  }
  return int(cudaErrorInvalidValue);
}

int launchReluAvgPoolBackward(const void* input, const void* gradOutput, void* gradInput, const PoolShape& shape,
                              PoolElement element, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (element) {
    case PoolElement::Float32: return backward<float>(input, gradOutput, gradInput, shape, s);
    case PoolElement::BFloat16: return backward<BFloat16Element>(input, gradOutput, gradInput, shape, s);
    case PoolElement::Float16: return backward<Float16Element>(input, gradOutput, gradInput, shape, s);
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace ensemble::kernels
