// SPDX-License-Identifier: GPL-3.0-or-later
// Launchers of the grouped 3x3 convolution's CUDA kernels, fp32 and tensor cores (their source
// and what they compute: GroupedConvKernels.cuh, GroupedConvMmaKernels.cuh). One file: the
// tensor-core weight gradient ends with the fp32 kernels' addWeightChunksKernel, which nvcc
// defines once per file that includes it.
#include <cuda_runtime.h>

#include "core/models/GroupedConvKernels.cuh"
#include "core/models/GroupedConvMmaKernels.cuh"

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
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return int(error);
  addWeightChunksKernel<<<addChunksBlocks(shape), kThreads, 0, stream>>>(scratch, gradWeight, shape);
  return int(cudaGetLastError());
}

template <typename Element, typename Index>
int forwardOnTensorCores(const void* in, const void* weight, const float* bias, void* out,
                         const GroupedConvShape& shape, cudaStream_t stream) {
  const dim3 grid = grouped_conv_mma::forwardGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  const auto kernel = grouped_conv_mma::wholeStagesFor<Element>(shape) ? grouped_conv_mma::forwardKernel<Element, Index, true>
                                                                        : grouped_conv_mma::forwardKernel<Element, Index, false>;
  kernel<<<grid, grouped_conv::kThreads, 0, stream>>>(static_cast<const Element*>(in), static_cast<const Element*>(weight),
                                                      bias, static_cast<Element*>(out), shape);
  return int(cudaGetLastError());
}

template <typename Element, typename Index>
int weightGradientOnTensorCores(const void* in, const void* gradOut, float* scratch, float* gradWeight,
                                const GroupedConvShape& shape, cudaStream_t stream) {
  const dim3 grid = grouped_conv::weightGradientGrid(shape);
  if (!launchable(grid)) return int(cudaErrorInvalidValue);
  grouped_conv_mma::weightGradientChunkKernel<Element, Index><<<grid, grouped_conv::kThreads, 0, stream>>>(
      static_cast<const Element*>(in), static_cast<const Element*>(gradOut), scratch, shape);
  if (const cudaError_t error = cudaGetLastError(); error != cudaSuccess) return int(error);
  grouped_conv::addWeightChunksKernel<<<grouped_conv::addChunksBlocks(shape), grouped_conv::kThreads, 0, stream>>>(
      scratch, gradWeight, shape);
  return int(cudaGetLastError());
}

/// Calls `launch` with the element type and index width for `operands` and `shape`.
template <template <typename, typename> class Launch, typename... Arguments>
int dispatchTensorCores(TensorCoreOperands operands, const GroupedConvShape& shape, Arguments... arguments) {
  const bool narrow = grouped_conv::fitsInt32(shape);
  if (operands == TensorCoreOperands::BFloat16) {
    return narrow ? Launch<BFloat16Element, int32_t>::run(arguments...)
                  : Launch<BFloat16Element, int64_t>::run(arguments...);
  }
  return narrow ? Launch<float, int32_t>::run(arguments...) : Launch<float, int64_t>::run(arguments...);
}

template <typename Element, typename Index>
struct LaunchForward {
  template <typename... Arguments>
  static int run(Arguments... arguments) { return forwardOnTensorCores<Element, Index>(arguments...); }
};

template <typename Element, typename Index>
struct LaunchWeightGradient {
  template <typename... Arguments>
  static int run(Arguments... arguments) { return weightGradientOnTensorCores<Element, Index>(arguments...); }
};

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

int launchGroupedConvForwardOnTensorCores(const void* in, const void* weight, const float* bias, void* out,
                                          const GroupedConvShape& shape, TensorCoreOperands operands, void* stream) {
  return dispatchTensorCores<LaunchForward>(operands, shape, in, weight, bias, out, shape,
                                            static_cast<cudaStream_t>(stream));
}

int launchGroupedConvWeightGradientOnTensorCores(const void* in, const void* gradOut, float* scratch,
                                                 float* gradWeight, const GroupedConvShape& shape,
                                                 TensorCoreOperands operands, void* stream) {
  return dispatchTensorCores<LaunchWeightGradient>(operands, shape, in, gradOut, scratch, gradWeight, shape,
                                                   static_cast<cudaStream_t>(stream));
}

}  // namespace ensemble::kernels
