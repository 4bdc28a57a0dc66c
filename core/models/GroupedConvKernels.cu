// SPDX-License-Identifier: GPL-3.0-or-later
// Launchers of the grouped 3x3 convolution's CUDA kernels (their source and what they
// compute: GroupedConvKernels.cuh).
#include <cuda_runtime.h>

#include "core/models/GroupedConvKernels.cuh"

namespace ensemble::kernels {
namespace {

using namespace grouped_conv;

/// Whether a grid fits CUDA's limits (y and z at most 65535).
bool launchable(const dim3& grid) { return grid.x > 0 && grid.y > 0 && grid.y <= 65535 && grid.z > 0 && grid.z <= 65535; }

template <typename Index>
int forward(const float* in, const float* weight, const float* bias, float* out, const GroupedConvShape& shape,
            cudaStream_t stream) {
  const int channelsPerThread = channelsPerThreadFor(shape);
  const dim3 grid = forwardGrid(shape, channelsPerThread);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  if (channelsPerThread == 8) {
    forwardKernel<8, Index><<<grid, kThreads, 0, stream>>>(in, weight, bias, out, shape);
  } else {
    forwardKernel<4, Index><<<grid, kThreads, 0, stream>>>(in, weight, bias, out, shape);
  }
  return int(cudaGetLastError());
}

template <typename Index>
int weightGradient(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                   const GroupedConvShape& shape, cudaStream_t stream) {
  const dim3 grid = weightGradientGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  weightGradientChunkKernel<Index><<<grid, kThreads, 0, stream>>>(in, gradOut, scratch, shape);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return int(error);
  addWeightChunksKernel<<<addChunksBlocks(shape), kThreads, 0, stream>>>(scratch, gradWeight, shape);
  return int(cudaGetLastError());
}

}  // namespace

int launchGroupedConvForward(const float* in, const float* weight, const float* bias, float* out,
                             const GroupedConvShape& shape, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return fitsInt32(shape) ? forward<int32_t>(in, weight, bias, out, shape, s)
                          : forward<int64_t>(in, weight, bias, out, shape, s);
}

int64_t groupedConvWeightGradientScratchFloats(const GroupedConvShape& shape) {
  return chunkCount(shape) * shape.groups * shape.outChannels * shape.inChannels * 9;
}

int launchGroupedConvWeightGradient(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                                    const GroupedConvShape& shape, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return fitsInt32(shape) ? weightGradient<int32_t>(in, gradOut, scratch, gradWeight, shape, s)
                          : weightGradient<int64_t>(in, gradOut, scratch, gradWeight, shape, s);
}

}  // namespace ensemble::kernels
