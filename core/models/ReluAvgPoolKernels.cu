// SPDX-License-Identifier: GPL-3.0-or-later
// Launchers of the fused ReLU + average pool's CUDA kernels (their source and what they
// compute: ReluAvgPoolKernels.cuh).
#include <cuda_runtime.h>

#include "core/models/ReluAvgPoolKernels.cuh"

namespace ensemble::kernels {
namespace {

using namespace relu_pool;

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
