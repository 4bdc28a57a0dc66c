// SPDX-License-Identifier: GPL-3.0-or-later
// Launchers of the fused first layer's CUDA kernels (their source and what they compute:
// ConvReluPoolKernels.cuh).
#include <cuda_runtime.h>

#include "core/models/ConvReluPoolKernels.cuh"

namespace ensemble::kernels {
namespace {

using namespace conv_pool;

template <typename Out>
int forward(const float* images, const float* weight, const float* bias, void* pooled, const ConvPoolShape& shape,
            cudaStream_t stream) {
  const auto kernel = fitsInt32(shape) ? forwardKernel<Out, int32_t> : forwardKernel<Out, int64_t>;
  kernel<<<forwardBlocks(shape), kThreads, 0, stream>>>(images, weight, bias, static_cast<Out*>(pooled), shape);
  return int(cudaGetLastError());
}

template <typename Grad>
int backward(const float* images, const float* weight, const float* bias, const void* gradPooled, float* scratch,
             float* gradWeight, float* gradBias, const ConvPoolShape& shape, cudaStream_t stream) {
  // One block per (chunk, channel): a grid's y extent is at most 65535.
  if (shape.images < 1 || shape.channels < 1 || shape.channels > 65535) return int(cudaErrorInvalidValue);
  const auto sums = fitsInt32(shape) ? chunkSumsKernel<Grad, int32_t> : chunkSumsKernel<Grad, int64_t>;
  sums<<<dim3(unsigned(chunkCount(shape)), unsigned(shape.channels)), kThreads, 0, stream>>>(
      images, weight, bias, static_cast<const Grad*>(gradPooled), scratch, shape);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return int(error);
  addChunksKernel<<<chunkSumBlocks(shape), kThreads, 0, stream>>>(scratch, gradWeight, gradBias, shape);
  return int(cudaGetLastError());
}

}  // namespace

int64_t convReluPoolScratchFloats(const ConvPoolShape& shape) { return chunkCount(shape) * shape.channels * kSums; }

int launchConvReluPoolForward(const float* images, const float* weight, const float* bias, void* pooled,
                              const ConvPoolShape& shape, PoolElement element, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (element) {
    case PoolElement::Float32: return forward<float>(images, weight, bias, pooled, shape, s);
    case PoolElement::BFloat16: return forward<BFloat16Element>(images, weight, bias, pooled, shape, s);
    case PoolElement::Float16: return forward<Float16Element>(images, weight, bias, pooled, shape, s);
  }
  return int(cudaErrorInvalidValue);
}

int launchConvReluPoolBackward(const float* images, const float* weight, const float* bias, const void* gradPooled,
                               float* scratch, float* gradWeight, float* gradBias, const ConvPoolShape& shape,
                               PoolElement element, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  switch (element) {
    case PoolElement::Float32:
      return backward<float>(images, weight, bias, gradPooled, scratch, gradWeight, gradBias, shape, s);
    case PoolElement::BFloat16:
      return backward<BFloat16Element>(images, weight, bias, gradPooled, scratch, gradWeight, gradBias, shape, s);
    case PoolElement::Float16:
      return backward<Float16Element>(images, weight, bias, gradPooled, scratch, gradWeight, gradBias, shape, s);
  }
  return int(cudaErrorInvalidValue);
}

}  // namespace ensemble::kernels
