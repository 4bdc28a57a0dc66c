// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution on a GPU in fp32: a grouped 3x3 convolution (one group
// per member), forward, input gradient and weight gradient, as implicit matrix products. The
// kernels' source, compiled by nvcc in GroupedConvKernels.cu and run on the CPU by
// TestCudaKernelsOnCpu (tests/CudaOnCpu.h).
//
// Why: cuDNN runs a grouped fp32 convolution one group at a time, in kernels that made
// 7-14 TFLOP/s on an H200 (docs/gpu-reports/2026-11-26-NVIDIA-H200-kernel-profile.md: its
// three passes were about 2.3 of the 4.2 ms of the stacked fp32 step under ncu). Here one
// launch covers every group.
//
// Forward (and the input's gradient, which is the forward of the output's gradient with the
// filters transposed and flipped): per group, out[pixel][channel] = sum over taps (input
// channel, row, column) of in[pixel shifted by the tap][input channel] * weight[channel][tap].
// A block computes 256 pixels x (8 * ChannelsPerThread) channels of one group; each thread 8
// pixels (32 apart: a warp's stores are 32 consecutive pixels of one channel) x
// ChannelsPerThread channels, from 8 taps at a time staged in shared memory (two buffers: the
// next stage's global loads are in flight while this one is multiplied). Each output is its
// bias, then the taps in depth order (below), each a fused multiply-add.
//
// The products' depth (a tap) runs over (kernel position, input channel), position first:
// depth k = position * inChannels + channel, position = kernel row * 3 + kernel column; the
// filters stay in LibTorch's [channel][in][row][column]. Any order sums the same products;
// this one makes the im2col gather cheap. A pixel's 9 positions lie in the image or in the
// padding alike for every channel (one 9-bit mask per pixel, insidePositions), and where
// inChannels is a multiple of a stage's depth (the CNN's 32 and 64), a stage is one position
// and consecutive channels: one bounds check, then loads a plane apart.
//
// Weight gradient: per group, gradWeight[channel][tap] = sum over pixels of
// gradOut[pixel][channel] * in[pixel shifted by the tap]. A block sums a chunk of
// kChunkPixels pixels for 64 channels x 96 taps of one group (each thread 4 x 6), 16 pixels
// at a time; the chunks' partial sums are then added in chunk order. No atomics anywhere: the
// same bits on every run, with or without a CUDA graph.
#include <cstdint>

#include "core/models/CudaElements.cuh"
#include "core/models/GroupedConvKernels.h"

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {
namespace grouped_conv {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// Forward.
constexpr int kPixelsPerThread = 8;
constexpr int kTilePixels = 32 * kPixelsPerThread;
constexpr int kStageTaps = 8;

// Weight gradient.
constexpr int kGradChannelsPerThread = 4, kGradTapsPerThread = 6;
constexpr int kGradTileChannels = 16 * kGradChannelsPerThread;  // 64
constexpr int kGradTileTaps = 16 * kGradTapsPerThread;          // 96
constexpr int kStagePixels = 16;
constexpr int64_t kChunkPixels = 2048;

__host__ __device__ inline int64_t pixelsOf(const GroupedConvShape& shape) {
  return shape.images * shape.height * shape.width;
}

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Output channels per block for a shape: 64 when it has as many, else 32.
inline int channelsPerThreadFor(const GroupedConvShape& shape) { return shape.outChannels >= 64 ? 8 : 4; }

inline dim3 forwardGrid(const GroupedConvShape& shape, int channelsPerThread) {
  return dim3(unsigned(ceilDiv(pixelsOf(shape), kTilePixels)),
              unsigned(ceilDiv(shape.outChannels, int64_t(kWarps) * channelsPerThread)), unsigned(shape.groups));
}

__host__ __device__ inline int64_t chunkCount(const GroupedConvShape& shape) {
  return (pixelsOf(shape) + kChunkPixels - 1) / kChunkPixels;
}

inline dim3 weightGradientGrid(const GroupedConvShape& shape) {
  const int64_t tiles = ceilDiv(shape.outChannels, kGradTileChannels) * ceilDiv(shape.inChannels * 9, kGradTileTaps);
  return dim3(unsigned(chunkCount(shape)), unsigned(tiles), unsigned(shape.groups));
}

inline unsigned addChunksBlocks(const GroupedConvShape& shape) {
  return unsigned(ceilDiv(shape.groups * shape.outChannels * shape.inChannels * 9, kThreads));
}

/// Whether every index into the tensors fits 32 bits.
inline bool fitsInt32(const GroupedConvShape& shape) {
  const int64_t channels = shape.groups * (shape.inChannels > shape.outChannels ? shape.inChannels : shape.outChannels);
  return pixelsOf(shape) * channels + int64_t(kTilePixels) * 64 < (int64_t(1) << 31);
}

/// Where a pixel of the flattened images x height x width lies: its image, its offset in the
/// plane, its row and column (all zero for a pixel past the end, which loads nothing).
template <typename Index>
struct PixelPlace {
  Index image = 0, inPlane = 0, row = 0, column = 0;
};

template <typename Index>
__device__ __forceinline__ PixelPlace<Index> placeOf(Index pixel, bool inside, Index plane, Index width) {
  PixelPlace<Index> place;
  if (!inside) return place;
  place.image = pixel / plane;
  place.inPlane = pixel - place.image * plane;
  place.row = place.inPlane / width;
  place.column = place.inPlane - place.row * width;
  return place;
}

/// A pixel's place carried forward by a fixed step, where placeOf(pixel + step) would divide
/// twice by runtime values. The weight gradients' threads each copy one pixel a stage, `step`
/// past the last; on sm_90 the divisions were about 40 instructions of each stage's loop
/// (`bench/kernel_sass.py`: the fp32 weight gradient's 693, the mma.sync one's 417), in every
/// stage of every block. The step splits once into whole rows and columns; a stage then adds
/// both and carries at most one column wrap and, for planes smaller than the step, a few
/// image wraps. Any step and image size give placeOf's place.
template <typename Index>
struct PixelStepper {
  Index step, rows, columns;  // step = rows * width + columns, columns < width

  __device__ __forceinline__ PixelStepper(Index pixels, Index width)
      : step(pixels), rows(pixels / width), columns(pixels - (pixels / width) * width) {}

  /// place becomes placeOf(pixel + step) of the pixel it was placeOf.
  __device__ __forceinline__ void advance(PixelPlace<Index>& place, Index plane, Index height, Index width) const {
    place.inPlane += step;
    place.row += rows;
    place.column += columns;
    if (place.column >= width) {
      place.column -= width;
      ++place.row;
    }
    while (place.row >= height) {
      place.row -= height;
      place.inPlane -= plane;
      ++place.image;
    }
  }
};

/// Bit p set where kernel position p of the pixel at (row, column) lies inside the image.
template <typename Index>
__device__ __forceinline__ unsigned insidePositions(Index row, Index column, Index height, Index width) {
  const unsigned rows = (row >= 1 ? 1u : 0u) | 2u | (row + 1 < height ? 4u : 0u);
  const unsigned columns = (column >= 1 ? 1u : 0u) | 2u | (column + 1 < width ? 4u : 0u);
  unsigned mask = 0;
#pragma unroll
  for (int position = 0; position < 9; ++position) {
    if ((rows >> (position / 3)) & (columns >> (position % 3)) & 1u) mask |= 1u << position;
  }
  return mask;
}

/// How far, in one channel's plane, kernel position `position` reads from its pixel.
template <typename Index>
__device__ __forceinline__ Index positionOffset(Index position, Index width) {
  return (position / 3 - 1) * width + (position % 3 - 1);
}

/// A depth's kernel position (9 or more: past the filter) and input channel.
template <typename Index>
struct Depth {
  Index position, channel;
};

template <typename Index>
__device__ __forceinline__ Depth<Index> depthOf(Index depth, Index inChannels) {
  const Index position = depth / inChannels;
  return {position, depth - position * inChannels};
}

/// Where a weight gradient's tap (a depth) is read for a pixel, from the pixel's first channel,
/// and its kernel position (9 past the filter: no bit of insidePositions, never read). A
/// thread's taps are the same in every stage, so the weight-gradient kernels find them once.
template <typename Index>
struct TapPlace {
  Index offset;
  unsigned position;
};

template <typename Index>
__device__ __forceinline__ TapPlace<Index> tapPlaceOf(Index depth, Index inChannels, Index plane, Index width) {
  const Depth<Index> at = depthOf(depth, inChannels);
  if (at.position >= 9) return {Index(0), 9u};
  return {at.channel * plane + positionOffset(at.position, width), unsigned(at.position)};
}

/// Whether a pixel whose window insidePositions gives as `insideMask` reads that tap.
template <typename Index>
__device__ __forceinline__ bool readsTap(unsigned insideMask, const TapPlace<Index>& tap) {
  return (insideMask >> tap.position) & 1u;
}

/// Whether every stage of the fp32 forward is one kernel position: forwardKernel's WholeStages.
inline bool wholeStagesFor(const GroupedConvShape& shape) { return shape.inChannels % kStageTaps == 0; }

/// The main loop of both kernels, double-buffered: stage s + 1's global loads (into
/// registers) are in flight while stage s, in shared buffer s % 2, is multiplied.
template <typename Index, typename Load, typename Store, typename Multiply>
__device__ __forceinline__ void runStages(Index stages, Index stageSize, Load& load, Store& store, Multiply& multiply) {
  load(Index(0));
  store(0);
  __syncthreads();
  for (Index stage = 0; stage < stages; ++stage) {
    const int buffer = int(stage & 1);
    const bool more = stage + 1 < stages;
    if (more) load((stage + 1) * stageSize);
    multiply(buffer);
    if (more) store(buffer ^ 1);
    __syncthreads();
  }
}

/// out = conv(in, weight) + bias for one tile; grid forwardGrid(shape, ChannelsPerThread),
/// kThreads threads, WholeStages = wholeStagesFor(shape). `bias` may be null.
template <int ChannelsPerThread, typename Index, bool WholeStages>
__global__ void __launch_bounds__(kThreads, 2)  // at most 128 registers: two blocks per SM
    forwardKernel(const float* __restrict__ in, const float* __restrict__ weight, const float* __restrict__ bias,
                  float* __restrict__ out, GroupedConvShape shape) {
  constexpr int kTileChannels = kWarps * ChannelsPerThread;
  constexpr int kWeightLoads = kStageTaps * kTileChannels / kThreads;
  constexpr int kWeightRow = kTileChannels + 4;  // padding: the stores' 8 taps fall in different banks
  __shared__ float pixelTile[2][kStageTaps][kTilePixels];
  __shared__ float weightTile[2][kStageTaps][kWeightRow];

  const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
  const Index groups = Index(shape.groups), inChannels = Index(shape.inChannels), outChannels = Index(shape.outChannels);
  const Index height = Index(shape.height), width = Index(shape.width), plane = height * width;
  const Index pixels = Index(shape.images) * plane, taps = inChannels * 9;
  const Index group = Index(blockIdx.z), firstPixel = Index(blockIdx.x) * kTilePixels;
  const Index firstChannel = Index(blockIdx.y) * kTileChannels;

  // Each thread stages the taps of one pixel of the tile.
  const Index loadPixel = firstPixel + Index(threadIdx.x);
  const bool loadsPixel = loadPixel < pixels;
  const PixelPlace<Index> at = placeOf(loadPixel, loadsPixel, plane, width);
  const float* pixel = in + (at.image * groups + group) * inChannels * plane + at.inPlane;  // its first channel
  const unsigned inside = loadsPixel ? insidePositions(at.row, at.column, height, width) : 0u;
  const float* groupWeight = weight + group * outChannels * taps;

  float stagedPixels[kStageTaps], stagedWeights[kWeightLoads];
  const auto loadStage = [&](Index firstDepth) {
    const Depth<Index> first = depthOf(firstDepth, inChannels);
    if constexpr (WholeStages) {
      const bool reads = (inside >> first.position) & 1u;
      const Index offset = reads ? positionOffset(first.position, width) + first.channel * plane : Index(0);
#pragma unroll
      for (int k = 0; k < kStageTaps; ++k) stagedPixels[k] = reads ? pixel[offset + k * plane] : 0.f;
    } else {
      Depth<Index> depth = first;
#pragma unroll
      for (int k = 0; k < kStageTaps; ++k, ++depth.channel) {
        while (depth.channel >= inChannels) {
          depth.channel -= inChannels;
          ++depth.position;
        }
        const bool reads = depth.position < 9 && ((inside >> depth.position) & 1u);
        stagedPixels[k] = reads ? pixel[positionOffset(depth.position, width) + depth.channel * plane] : 0.f;
      }
    }
#pragma unroll
    for (int r = 0; r < kWeightLoads; ++r) {
      const int element = int(threadIdx.x) + r * kThreads;
      const Index outChannel = firstChannel + element / kStageTaps;
      const Depth<Index> depth = WholeStages ? Depth<Index>{first.position, first.channel + element % kStageTaps}
                                             : depthOf(firstDepth + element % kStageTaps, inChannels);
      stagedWeights[r] = depth.position < 9 && outChannel < outChannels
                             ? groupWeight[outChannel * taps + depth.channel * 9 + depth.position]
                             : 0.f;
    }
  };
  const auto storeStage = [&](int buffer) {
#pragma unroll
    for (int k = 0; k < kStageTaps; ++k) pixelTile[buffer][k][threadIdx.x] = stagedPixels[k];
#pragma unroll
    for (int r = 0; r < kWeightLoads; ++r) {
      const int element = int(threadIdx.x) + r * kThreads;
      weightTile[buffer][element % kStageTaps][element / kStageTaps] = stagedWeights[r];
    }
  };

  float sums[kPixelsPerThread][ChannelsPerThread];
#pragma unroll
  for (int j = 0; j < ChannelsPerThread; ++j) {
    const Index channel = firstChannel + warp * ChannelsPerThread + j;
    const float start = bias != nullptr && channel < outChannels ? bias[group * outChannels + channel] : 0.f;
#pragma unroll
    for (int i = 0; i < kPixelsPerThread; ++i) sums[i][j] = start;
  }

  const auto multiplyStage = [&](int buffer) {
#pragma unroll
    for (int k = 0; k < kStageTaps; ++k) {
      float pixelValues[kPixelsPerThread], weightValues[ChannelsPerThread];
#pragma unroll
      for (int i = 0; i < kPixelsPerThread; ++i) pixelValues[i] = pixelTile[buffer][k][lane + 32 * i];
#pragma unroll
      for (int j = 0; j < ChannelsPerThread; ++j) weightValues[j] = weightTile[buffer][k][warp * ChannelsPerThread + j];
#pragma unroll
      for (int i = 0; i < kPixelsPerThread; ++i) {
#pragma unroll
        for (int j = 0; j < ChannelsPerThread; ++j) sums[i][j] = fmaf(pixelValues[i], weightValues[j], sums[i][j]);
      }
    }
  };
  runStages((taps + kStageTaps - 1) / kStageTaps, Index(kStageTaps), loadStage, storeStage, multiplyStage);

#pragma unroll
  for (int i = 0; i < kPixelsPerThread; ++i) {
    const Index pixel = firstPixel + lane + 32 * i;
    if (pixel >= pixels) continue;
    const Index n = pixel / plane, inPlane = pixel - n * plane;
    float* outPixel = out + (n * groups + group) * outChannels * plane + inPlane;
#pragma unroll
    for (int j = 0; j < ChannelsPerThread; ++j) {
      const Index channel = firstChannel + warp * ChannelsPerThread + j;
      if (channel < outChannels) outPixel[channel * plane] = sums[i][j];
    }
  }
}

/// What block (chunk, tile, group) of weightGradientGrid sums: the chunk of kChunkPixels
/// pixels (its first pixel and its count, the last chunk's smaller), the group, and the first
/// output channel and depth of its kGradTileChannels x kGradTileTaps tile. The fp32 and the
/// tensor-core weight gradients share the grid.
template <typename Index>
struct WeightGradientBlock {
  Index chunk, group, firstChannel, firstDepth, chunkStart, chunkPixels;
};

template <typename Index>
__device__ __forceinline__ WeightGradientBlock<Index> weightGradientBlockOf(Index pixels, Index taps) {
  const Index tapTiles = (taps + kGradTileTaps - 1) / kGradTileTaps;
  const Index chunk = Index(blockIdx.x), chunkStart = chunk * Index(kChunkPixels);
  const Index left = pixels - chunkStart;
  return {chunk,
          Index(blockIdx.z),
          (Index(blockIdx.y) / tapTiles) * kGradTileChannels,
          (Index(blockIdx.y) % tapTiles) * kGradTileTaps,
          chunkStart,
          left < Index(kChunkPixels) ? left : Index(kChunkPixels)};
}

/// Block (chunk, tile, group): the chunk's sums for 64 channels x 96 taps of one group, into
/// scratch[chunk][group][channel][tap]. Grid weightGradientGrid(shape), kThreads threads.
template <typename Index>
__global__ void __launch_bounds__(kThreads)
    weightGradientChunkKernel(const float* __restrict__ in, const float* __restrict__ gradOut,
                              float* __restrict__ scratch, GroupedConvShape shape) {
  // A stage is [pixel][channel] and [pixel][tap], each row padded. A warp stores one column
  // of 16 pixels at a time: with rows of 64 or 96 floats those 16 stores fell in one bank
  // (16-way conflicts, most of this kernel's shared-memory traffic: docs/GPU.md); rows of 68
  // and 98 floats spread them over the banks and keep a thread's 4 channels (one 128-bit
  // load) and its taps (64-bit loads) aligned.
  constexpr int kGradRow = kGradTileChannels + 4, kTapRow = kGradTileTaps + 2;
  alignas(16) __shared__ float gradTile[2][kStagePixels][kGradRow];
  alignas(16) __shared__ float tapTile[2][kStagePixels][kTapRow];

  const Index groups = Index(shape.groups), inChannels = Index(shape.inChannels), outChannels = Index(shape.outChannels);
  const Index height = Index(shape.height), width = Index(shape.width), plane = height * width;
  const Index pixels = Index(shape.images) * plane, taps = inChannels * 9;
  const WeightGradientBlock<Index> block = weightGradientBlockOf(pixels, taps);

  // Thread t stages pixel t % 16 of each stage: its gradient for channels t / 16 + 16 r, and
  // its taps t / 16 + 16 r.
  const int stagePixel = int(threadIdx.x) % kStagePixels, row16 = int(threadIdx.x) / kStagePixels;
  constexpr int kGradLoads = kStagePixels * kGradTileChannels / kThreads;  // 4
  constexpr int kTapLoads = kStagePixels * kGradTileTaps / kThreads;       // 6
  float stagedGrads[kGradLoads], stagedTaps[kTapLoads];
  TapPlace<Index> tapPlaces[kTapLoads];
#pragma unroll
  for (int r = 0; r < kTapLoads; ++r) {
    tapPlaces[r] = tapPlaceOf(block.firstDepth + row16 + 16 * r, inChannels, plane, width);
  }
  // Stages are loaded in order: each stage's pixel is kStagePixels past the last one's.
  const PixelStepper<Index> stepper(Index(kStagePixels), width);
  PixelPlace<Index> at = placeOf(block.chunkStart + stagePixel, true, plane, width);
  const auto loadStage = [&](Index stageStart) {
    const bool inside = stageStart + stagePixel < block.chunkPixels;
    const Index imageGroup = inside ? at.image * groups + block.group : Index(0), inPlane = inside ? at.inPlane : Index(0);
    const float* pixel = in + imageGroup * inChannels * plane + inPlane;
    const float* grads = gradOut + imageGroup * outChannels * plane + inPlane;
    const unsigned insideMask = inside ? insidePositions(at.row, at.column, height, width) : 0u;
    stepper.advance(at, plane, height, width);
#pragma unroll
    for (int r = 0; r < kGradLoads; ++r) {
      const Index channel = block.firstChannel + row16 + 16 * r;
      stagedGrads[r] = inside && channel < outChannels ? grads[channel * plane] : 0.f;
    }
#pragma unroll
    for (int r = 0; r < kTapLoads; ++r) stagedTaps[r] = readsTap(insideMask, tapPlaces[r]) ? pixel[tapPlaces[r].offset] : 0.f;
  };
  const auto storeStage = [&](int buffer) {
#pragma unroll
    for (int r = 0; r < kGradLoads; ++r) {
      gradTile[buffer][stagePixel][row16 + 16 * r] = stagedGrads[r];
    }
#pragma unroll
    for (int r = 0; r < kTapLoads; ++r) tapTile[buffer][stagePixel][row16 + 16 * r] = stagedTaps[r];
  };

  const int channelGroup = int(threadIdx.x) % 16, tapGroup = int(threadIdx.x) / 16;
  float sums[kGradChannelsPerThread][kGradTapsPerThread];
#pragma unroll
  for (int i = 0; i < kGradChannelsPerThread; ++i) {
#pragma unroll
    for (int j = 0; j < kGradTapsPerThread; ++j) sums[i][j] = 0.f;
  }

  const auto multiplyStage = [&](int buffer) {
#pragma unroll
    for (int p = 0; p < kStagePixels; ++p) {
      float gradValues[kGradChannelsPerThread], tapValues[kGradTapsPerThread];
#pragma unroll
      for (int i = 0; i < kGradChannelsPerThread; ++i) {
        gradValues[i] = gradTile[buffer][p][channelGroup * kGradChannelsPerThread + i];
      }
#pragma unroll
      for (int j = 0; j < kGradTapsPerThread; ++j) tapValues[j] = tapTile[buffer][p][tapGroup * kGradTapsPerThread + j];
#pragma unroll
      for (int i = 0; i < kGradChannelsPerThread; ++i) {
#pragma unroll
        for (int j = 0; j < kGradTapsPerThread; ++j) sums[i][j] = fmaf(gradValues[i], tapValues[j], sums[i][j]);
      }
    }
  };
  runStages((block.chunkPixels + kStagePixels - 1) / kStagePixels, Index(kStagePixels), loadStage, storeStage,
            multiplyStage);

  float* chunkSums = scratch + (int64_t(block.chunk) * groups + block.group) * outChannels * taps;
#pragma unroll
  for (int i = 0; i < kGradChannelsPerThread; ++i) {
    const Index channel = block.firstChannel + channelGroup * kGradChannelsPerThread + i;
    if (channel >= outChannels) continue;
#pragma unroll
    for (int j = 0; j < kGradTapsPerThread; ++j) {
      const Depth<Index> depth = depthOf(block.firstDepth + tapGroup * kGradTapsPerThread + j, inChannels);
      if (depth.position < 9) chunkSums[channel * taps + depth.channel * 9 + depth.position] = sums[i][j];
    }
  }
}

/// One thread per weight: the chunks' partial sums added in chunk order.
__global__ void __launch_bounds__(kThreads)
    addWeightChunksKernel(const float* __restrict__ scratch, float* __restrict__ gradWeight, GroupedConvShape shape) {
  const int64_t perChunk = shape.groups * shape.outChannels * shape.inChannels * 9;
  const int64_t index = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= perChunk) return;
  float sum = scratch[index];
  const int64_t chunks = chunkCount(shape);
  for (int64_t chunk = 1; chunk < chunks; ++chunk) sum += scratch[chunk * perChunk + index];
  gradWeight[index] = sum;
}

}  // namespace grouped_conv
}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
