// SPDX-License-Identifier: GPL-3.0-or-later
// Launchers of the grouped 3x3 convolution's CUDA kernels, fp32 and tensor cores (their source
// and what they compute: GroupedConvKernels.cuh, GroupedConvMmaKernels.cuh,
// GroupedConvMmaSyncKernels.cuh). One file: the
// tensor-core weight gradient ends with the fp32 kernels' addWeightChunksKernel, which nvcc
// defines once per file that includes it.
#include <cuda_runtime.h>

#include "core/models/GroupedConvKernels.cuh"
#include "core/models/GroupedConvMmaKernels.cuh"
#include "core/models/GroupedConvMmaSyncKernels.cuh"

namespace ensemble::kernels {
namespace {

using namespace grouped_conv;

/// Whether a grid fits CUDA's limits (y and z at most 65535).
bool launchable(const dim3& grid) { return grid.x > 0 && grid.y > 0 && grid.y <= 65535 && grid.z > 0 && grid.z <= 65535; }

/// Both weight gradients end here, once their chunk kernel is queued: the chunks' partial sums
/// added in order into gradWeight.
int addWeightChunks(const float* scratch, float* gradWeight, const GroupedConvShape& shape, cudaStream_t stream) {
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return int(error);
  addWeightChunksKernel<<<addChunksBlocks(shape), kThreads, 0, stream>>>(scratch, gradWeight, shape);
  return int(cudaGetLastError());
}

template <typename Index>
int forward(const float* in, const float* weight, const float* bias, float* out, const GroupedConvShape& shape,
            cudaStream_t stream) {
  const int channelsPerThread = channelsPerThreadFor(shape);
  const dim3 grid = forwardGrid(shape, channelsPerThread);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  const bool whole = wholeStagesFor(shape);
  const auto kernel = channelsPerThread == 8 ? (whole ? forwardKernel<8, Index, true> : forwardKernel<8, Index, false>)
                                             : (whole ? forwardKernel<4, Index, true> : forwardKernel<4, Index, false>);
  kernel<<<grid, kThreads, 0, stream>>>(in, weight, bias, out, shape);
  return int(cudaGetLastError());
}

template <typename Index>
int weightGradient(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                   const GroupedConvShape& shape, cudaStream_t stream) {
  const dim3 grid = weightGradientGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  weightGradientChunkKernel<Index><<<grid, kThreads, 0, stream>>>(in, gradOut, scratch, shape);
  return addWeightChunks(scratch, gradWeight, shape, stream);
}

template <typename Element>
int forwardOnTensorCores(const void* in, const void* weight, const float* bias, void* out,
                         const GroupedConvShape& shape, cudaStream_t stream) {
  namespace mma = grouped_conv_mma;
  const dim3 grid = mma::forwardGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  const bool whole = mma::wholeStagesFor<Element>(shape);
  const auto narrow = whole ? mma::forwardKernel<Element, int32_t, true> : mma::forwardKernel<Element, int32_t, false>;
  const auto wide = whole ? mma::forwardKernel<Element, int64_t, true> : mma::forwardKernel<Element, int64_t, false>;
  const auto kernel = fitsInt32(shape) ? narrow : wide;
  kernel<<<grid, kThreads, 0, stream>>>(static_cast<const Element*>(in), static_cast<const Element*>(weight), bias,
                                        static_cast<Element*>(out), shape);
  return int(cudaGetLastError());
}

template <int Products, typename Index, bool StagedWeights>
int forwardOnMmaSync(const float* in, const float* weight, const float* bias, float* out,
                     const GroupedConvShape& shape, cudaStream_t stream) {
  namespace sync = grouped_conv_mma_sync;
  const int channelTiles = sync::channelTilesFor(shape);
  const dim3 grid = sync::forwardGrid(shape, channelTiles);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  const bool whole = sync::wholeStagesFor(shape);
  const auto wide = whole ? sync::forwardKernel<4, Products, Index, true, StagedWeights>
                          : sync::forwardKernel<4, Products, Index, false, StagedWeights>;
  const auto narrow = whole ? sync::forwardKernel<2, Products, Index, true, StagedWeights>
                            : sync::forwardKernel<2, Products, Index, false, StagedWeights>;
  (channelTiles == 4 ? wide : narrow)<<<grid, kThreads, 0, stream>>>(in, weight, bias, out, shape);
  return int(cudaGetLastError());
}

/// The filters into stageWeightsKernel's layout, then the forward reading them there.
template <int Products>
int forwardOnMmaSyncStaged(const float* in, const float* weight, float* staged, const float* bias, float* out,
                           const GroupedConvShape& shape, cudaStream_t stream) {
  namespace sync = grouped_conv_mma_sync;
  const dim3 grid = sync::stageWeightsGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  sync::stageWeightsKernel<<<grid, sync::kStagingThreads, 0, stream>>>(weight, staged, shape);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return int(error);
  return forwardOnMmaSync<Products, int32_t, true>(in, staged, bias, out, shape, stream);
}

template <int Products, typename Index>
int weightGradientOnMmaSync(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                            const GroupedConvShape& shape, cudaStream_t stream) {
  const dim3 grid = weightGradientGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  grouped_conv_mma_sync::weightGradientChunkKernel<Products, Index><<<grid, kThreads, 0, stream>>>(in, gradOut, scratch,
                                                                                                  shape);
  return addWeightChunks(scratch, gradWeight, shape, stream);
}

template <typename Element>
int weightGradientOnTensorCores(const void* in, const void* gradOut, float* scratch, float* gradWeight,
                                const GroupedConvShape& shape, cudaStream_t stream) {
  namespace mma = grouped_conv_mma;
  const dim3 grid = weightGradientGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  const auto kernel = fitsInt32(shape) ? mma::weightGradientChunkKernel<Element, int32_t>
                                       : mma::weightGradientChunkKernel<Element, int64_t>;
  kernel<<<grid, kThreads, 0, stream>>>(static_cast<const Element*>(in), static_cast<const Element*>(gradOut), scratch,
                                        shape);
  return addWeightChunks(scratch, gradWeight, shape, stream);
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

int64_t groupedConvStagedWeightFloats(const GroupedConvShape& shape) {
  return grouped_conv_mma_sync::stagedWeightFloats(shape);
}

int launchGroupedConvForwardOnMmaSync(const float* in, const float* weight, float* stagedWeight, const float* bias,
                                      float* out, const GroupedConvShape& shape, int products, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (products != 1 && products != 3) return int(cudaErrorInvalidValue);
  if (fitsInt32(shape)) {
    if (stagedWeight != nullptr) {
      return products == 3 ? forwardOnMmaSyncStaged<3>(in, weight, stagedWeight, bias, out, shape, s)
                           : forwardOnMmaSyncStaged<1>(in, weight, stagedWeight, bias, out, shape, s);
    }
    return products == 3 ? forwardOnMmaSync<3, int32_t, false>(in, weight, bias, out, shape, s)
                         : forwardOnMmaSync<1, int32_t, false>(in, weight, bias, out, shape, s);
  }
  return products == 3 ? forwardOnMmaSync<3, int64_t, false>(in, weight, bias, out, shape, s)
                       : forwardOnMmaSync<1, int64_t, false>(in, weight, bias, out, shape, s);
}

int launchGroupedConvWeightGradientOnMmaSync(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                                             const GroupedConvShape& shape, int products, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  if (products != 1 && products != 3) return int(cudaErrorInvalidValue);
  if (fitsInt32(shape)) {
    return products == 3 ? weightGradientOnMmaSync<3, int32_t>(in, gradOut, scratch, gradWeight, shape, s)
                         : weightGradientOnMmaSync<1, int32_t>(in, gradOut, scratch, gradWeight, shape, s);
  }
  return products == 3 ? weightGradientOnMmaSync<3, int64_t>(in, gradOut, scratch, gradWeight, shape, s)
                       : weightGradientOnMmaSync<1, int64_t>(in, gradOut, scratch, gradWeight, shape, s);
}

int launchGroupedConvForwardOnTensorCores(const void* in, const void* weight, const float* bias, void* out,
                                          const GroupedConvShape& shape, TensorCoreOperands operands, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return operands == TensorCoreOperands::BFloat16
             ? forwardOnTensorCores<BFloat16Element>(in, weight, bias, out, shape, s)
             : forwardOnTensorCores<float>(in, weight, bias, out, shape, s);
}

int launchGroupedConvWeightGradientOnTensorCores(const void* in, const void* gradOut, float* scratch,
                                                 float* gradWeight, const GroupedConvShape& shape,
                                                 TensorCoreOperands operands, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return operands == TensorCoreOperands::BFloat16
             ? weightGradientOnTensorCores<BFloat16Element>(in, gradOut, scratch, gradWeight, shape, s)
             : weightGradientOnTensorCores<float>(in, gradOut, scratch, gradWeight, shape, s);
}

}  // namespace ensemble::kernels
