// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution's forward, and so its input gradient (the forward of the
// output's gradient with the filters transposed and flipped), and its weight gradient, on tensor
// cores with fp32's accuracy: each float operand x is split into big = tf32(x) and small =
// x - big truncated to TF32 (core/models/WarpMma.cuh), and each product is summed as
// small * big + big * small + big * big ("3xTF32", as CUTLASS names it; the small * small term,
// about 2^-22 of the product, is left out), in float. Products = 1 is plain TF32 (x rounded
// once). Compiled by nvcc in GroupedConvKernels.cu; run on the CPU, every lane's fragment as the
// PTX ISA places it, by TestCudaKernelsOnCpu (tests/WarpMmaOnCpu.h).
//
// Why a third set of kernels for this layer: fp32's 2x torch.compile at 16 members needs the
// convolution's three passes in about 0.8 ms on an H200, where the fp32 kernels' loops
// (GroupedConvKernels.cuh) give fused multiply-adds at most 54-68% of their issue slots
// at 67 TFLOP/s (docs/GPU.md, "The kernels as compiled"). The tensor cores run TF32 several
// times faster than that even three products at a time, but the wmma kernels
// (GroupedConvMmaKernels.cuh) made only 27 TFLOP/s in TF32 there: their fragments come through
// generic loads (wmma.load without .shared), a stage is 16 taps between two barriers with the
// next stage's loads held in registers, and the input gradient's 32 channels fill half their
// 64-channel tile. Here:
// - mma.sync.m16n8k8 on fragments these kernels place themselves (core/models/WarpMma.cuh): plain
//   32-bit shared loads, from rows padded to 8 floats past a multiple of 32 so that a
//   fragment's 32 loads fall in 32 banks;
// - cp.async copies global to shared memory, three stages in flight, one barrier a stage, no
//   staging registers;
// - a tile of 128 pixels x 64 channels, or x 32 where the layer has 32 output channels (the
//   input gradient's), each warp 32 pixels x 32 or 16 channels;
// - the split happens as a fragment is loaded: each value is split once per warp and used by
//   the warp's two pixel tiles or its 2-4 channel tiles;
// - the weight gradient keeps the fp32 kernel's blocks (a chunk of 2,048 pixels for 64 channels
//   x 96 taps, then grouped_conv::addWeightChunksKernel adds the chunks in order), 16 pixels a
//   stage, each warp 32 channels x 24 taps.
//
// The depth runs kernel position first, input channel second, as in the other kernels
// (GroupedConvKernels.cuh says why); where inChannels is a multiple of 16 (the CNN's 32 and
// 64) a stage is one kernel position. Each output starts from its bias; no atomics: the same
// bits on every run.
#include <cstdint>

#include "core/models/CudaElements.cuh"
#include "core/models/GroupedConvKernels.cuh"
#include "core/models/WarpMma.cuh"

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {
namespace grouped_conv_mma_sync {

using grouped_conv::kThreads;
constexpr int kStage = 16;        // taps a stage: two depths of m16n8k8
constexpr int kBuffers = 3;       // stages in shared memory: two in flight while one is multiplied
constexpr int kTilePixels = 128;  // 4 warps along the pixels, 32 each (two tiles of 16)
constexpr int kWarpPixels = 32;
constexpr int kPixelRow = kTilePixels + 8;  // [tap][pixel]

/// A block's output channels: 64 (each warp 4 tiles of 8) where the layer has as many, else 32.
__host__ __device__ inline int channelTilesFor(const GroupedConvShape& shape) { return shape.outChannels >= 64 ? 4 : 2; }

inline dim3 forwardGrid(const GroupedConvShape& shape, int channelTiles) {
  return dim3(unsigned(grouped_conv::ceilDiv(grouped_conv::pixelsOf(shape), kTilePixels)),
              unsigned(grouped_conv::ceilDiv(shape.outChannels, 16 * channelTiles)), unsigned(shape.groups));
}

/// Whether every stage is one kernel position: forwardKernel's WholeStages.
inline bool wholeStagesFor(const GroupedConvShape& shape) { return shape.inChannels % kStage == 0; }

// The filters staged (forwardKernel's StagedWeights): [group][depth][column], the depth in the
// kernels' order (kernel position first, input channel second) and rounded up to whole stages,
// the columns the output channels rounded up to whole tiles of the block's channels, zero past
// either end. A stage's filters for a block are then 16 rows of 32 or 64 contiguous floats, each
// row 16-byte aligned: one 16-byte copy a thread or half the threads, where the filters as
// LibTorch stores them ([channel][input channel][position]: a stage's 16 depths 36 bytes apart)
// take four 4-byte copies a thread, each warp's spread over some 36 sectors of 32 bytes.
__host__ __device__ inline int64_t roundedUp(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }
__host__ __device__ inline int64_t stagedWeightColumns(const GroupedConvShape& shape) {
  return roundedUp(shape.outChannels, 16 * channelTilesFor(shape));
}
__host__ __device__ inline int64_t stagedWeightDepths(const GroupedConvShape& shape) {
  return roundedUp(shape.inChannels * 9, kStage);
}
inline int64_t stagedWeightFloats(const GroupedConvShape& shape) {
  return shape.groups * stagedWeightDepths(shape) * stagedWeightColumns(shape);
}
constexpr int kStagingThreads = 64;  // a block stages 64 columns of one depth of one group
inline dim3 stageWeightsGrid(const GroupedConvShape& shape) {
  return dim3(unsigned(grouped_conv::ceilDiv(stagedWeightColumns(shape), kStagingThreads)),
              unsigned(stagedWeightDepths(shape)), unsigned(shape.groups));
}

/// staged = `weight` [groups * outChannels][inChannels][3][3] in the staged layout above; grid
/// stageWeightsGrid(shape), kStagingThreads threads: each block writes consecutive floats.
__global__ void __launch_bounds__(kStagingThreads)
    stageWeightsKernel(const float* __restrict__ weight, float* __restrict__ staged, GroupedConvShape shape) {
  const int64_t columns = stagedWeightColumns(shape), column = int64_t(blockIdx.x) * kStagingThreads + threadIdx.x;
  if (column >= columns) return;
  const int64_t depth = blockIdx.y, group = blockIdx.z, position = depth / shape.inChannels;
  const int64_t channel = depth - position * shape.inChannels;
  staged[(group * stagedWeightDepths(shape) + depth) * columns + column] =
      position < 9 && column < shape.outChannels
          ? weight[((group * shape.outChannels + column) * shape.inChannels + channel) * 9 + position]
          : 0.f;
}

/// The TF32 operands of x: big, and (Products 3) small = tf32(x - big).
template <int Products>
struct Split {
  std::uint32_t big, small;
};

template <int Products>
__device__ __forceinline__ Split<Products> splitOf(float x) {
  Split<Products> split{0u, 0u};
  if constexpr (Products == 3) {
    warp_mma::splitTf32(x, split.big, split.small);
  } else {
    split.big = warp_mma::tf32Bits(x);
  }
  return split;
}

/// A lane's place in its warp's fragments (core/models/WarpMma.cuh): g = lane / 4, t = lane % 4.
struct Lane {
  int g, t;
};

/// A's fragment of mma.m16n8k8, split: rows firstRow + (0..15), depths firstDepth + (0..7) of a
/// tile stored [depth][row], `rowsPerDepth` floats a depth.
template <int Products>
struct FragmentA {
  std::uint32_t big[4], small[4];
};
template <int Products>
__device__ __forceinline__ FragmentA<Products> fragmentA(const float* tile, int rowsPerDepth, int firstRow,
                                                         int firstDepth, Lane lane) {
  FragmentA<Products> fragment;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int row = firstRow + lane.g + 8 * (r % 2), depth = firstDepth + lane.t + 4 * (r / 2);
    const Split<Products> split = splitOf<Products>(tile[depth * rowsPerDepth + row]);
    fragment.big[r] = split.big;
    fragment.small[r] = split.small;
  }
  return fragment;
}

/// B's fragment, split: columns firstColumn + (0..7), depths firstDepth + (0..7) of a tile stored
/// [depth][column].
template <int Products>
struct FragmentB {
  std::uint32_t big[2], small[2];
};
template <int Products>
__device__ __forceinline__ FragmentB<Products> fragmentB(const float* tile, int columnsPerDepth, int firstColumn,
                                                         int firstDepth, Lane lane) {
  FragmentB<Products> fragment;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const Split<Products> split =
        splitOf<Products>(tile[(firstDepth + lane.t + 4 * r) * columnsPerDepth + firstColumn + lane.g]);
    fragment.big[r] = split.big;
    fragment.small[r] = split.small;
  }
  return fragment;
}

/// d += a b: three products of the split operands, or one of the rounded ones.
template <int Products>
__device__ __forceinline__ void multiplyAdd(float (&d)[4], const FragmentA<Products>& a, const FragmentB<Products>& b) {
  if constexpr (Products == 3) {
    warp_mma::mmaTf32Split(d, a.big, a.small, b.big, b.small);
  } else {
    warp_mma::mmaTf32(d, a.big, b.big);
  }
}

/// One stage of a warp's products: sums[i][j] += A's rows firstRow + 16 i + (0..15) times B's
/// columns firstColumn + 8 j + (0..7), over the stage's kStage depths (tiles stored as
/// fragmentA and fragmentB read them).
template <int Products, int Tiles>
__device__ __forceinline__ void multiplyWarpStage(float (&sums)[2][Tiles][4], const float* aTile, int rowsPerDepth,
                                                  int firstRow, const float* bTile, int columnsPerDepth,
                                                  int firstColumn, Lane lane) {
#pragma unroll
  for (int k = 0; k < kStage; k += 8) {
    FragmentA<Products> a[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) a[i] = fragmentA<Products>(aTile, rowsPerDepth, firstRow + 16 * i, k, lane);
#pragma unroll
    for (int j = 0; j < Tiles; ++j) {
      const FragmentB<Products> b = fragmentB<Products>(bTile, columnsPerDepth, firstColumn + 8 * j, k, lane);
#pragma unroll
      for (int i = 0; i < 2; ++i) multiplyAdd(sums[i][j], a[i], b);
    }
  }
}

/// Both kernels' main loop over kBuffers buffers: stage s + 2's copies are queued while stage s
/// is multiplied. One barrier a stage: after it every thread has finished stage s - 1, whose
/// buffer stage s + 2 refills. `copy(stage)` is called for each stage in order.
template <typename Index, typename Copy, typename Multiply>
__device__ __forceinline__ void runCopiedStages(Index stages, Copy& copy, Multiply& multiply) {
#pragma unroll
  for (int s = 0; s < kBuffers - 1; ++s) {
    if (Index(s) < stages) copy(Index(s));
    warp_mma::commitCopies();  // empty groups too: the wait below counts groups
  }
  for (Index stage = 0; stage < stages; ++stage) {
    warp_mma::waitCopies<kBuffers - 2>();
    __syncthreads();
    if (stage + kBuffers - 1 < stages) copy(stage + kBuffers - 1);
    warp_mma::commitCopies();
    multiply(stage);
  }
}

/// out = conv(in, weight) + bias for 128 pixels x 16 ChannelTiles channels of one group; grid
/// forwardGrid(shape, ChannelTiles), kThreads threads, WholeStages = wholeStagesFor(shape).
/// Products: 3 (fp32's accuracy) or 1 (TF32). `bias` may be null. StagedWeights: `weight` is
/// stageWeightsKernel's layout, else LibTorch's; the same products in the same order either way.
template <int ChannelTiles, int Products, typename Index, bool WholeStages, bool StagedWeights = false>
__global__ void __launch_bounds__(kThreads, 2)  // at most 128 registers: two blocks per SM
    forwardKernel(const float* __restrict__ in, const float* __restrict__ weight, const float* __restrict__ bias,
                  float* __restrict__ out, GroupedConvShape shape) {
  static_assert(ChannelTiles == 2 || ChannelTiles == 4, "a warp makes 16 or 32 channels");
  static_assert(Products == 1 || Products == 3, "one TF32 product, or three of split operands");
  constexpr int kTileChannels = 16 * ChannelTiles;  // two warps along the channels
  constexpr int kChannelRow = kTileChannels + 8;    // [tap][channel]
  constexpr int kPixelFloats = kStage * kPixelRow, kBufferFloats = kPixelFloats + kStage * kChannelRow;
  static_assert(kPixelRow % 32 == 8 && kChannelRow % 32 == 8, "a fragment's loads fall in 32 banks");
  alignas(16) __shared__ float shared[kBuffers * kBufferFloats];

  const Index groups = Index(shape.groups), inChannels = Index(shape.inChannels), outChannels = Index(shape.outChannels);
  const Index height = Index(shape.height), width = Index(shape.width), plane = height * width;
  const Index pixels = Index(shape.images) * plane, taps = inChannels * 9;
  const Index group = Index(blockIdx.z), firstPixel = Index(blockIdx.x) * kTilePixels;
  const Index firstChannel = Index(blockIdx.y) * kTileChannels;

  // Thread t copies pixel t % 128 at taps t / 128 + 2 i of a stage (a warp's 32 consecutive
  // pixels), and the filters' tap t % 16 for channels t / 16 + 16 r.
  constexpr int kPixelCopies = kStage * kTilePixels / kThreads;
  constexpr int kWeightCopies = kStage * kTileChannels / kThreads;
  constexpr int kTapPhases = kThreads / kTilePixels, kChannelsPerPass = kThreads / kStage;
  const int tilePixel = int(threadIdx.x) % kTilePixels, tapPhase = int(threadIdx.x) / kTilePixels;
  const int weightTap = int(threadIdx.x) % kStage, weightChannel = int(threadIdx.x) / kStage;
  const bool copiesPixel = firstPixel + tilePixel < pixels;
  const auto at = grouped_conv::placeOf(firstPixel + tilePixel, copiesPixel, plane, width);
  const float* pixel = in + (at.image * groups + group) * inChannels * plane + at.inPlane;  // its first channel
  const unsigned inside = copiesPixel ? grouped_conv::insidePositions(at.row, at.column, height, width) : 0u;
  const float* groupWeight = weight + group * outChannels * taps;
  // Staged: the block's columns of its group's first stage; a stage is kStage rows further.
  const int64_t stagedColumns = StagedWeights ? stagedWeightColumns(shape) : 0;
  const float* stagedWeight =
      weight + (int64_t(group) * (StagedWeights ? stagedWeightDepths(shape) : 0)) * stagedColumns + firstChannel;

  using Depth = grouped_conv::Depth<Index>;
  // Stages are copied in order, so each one's first depth follows the last one's: no division.
  Depth first{0, 0};
  const auto advance = [&](Depth& depth, Index by) {
    depth.channel += by;
    while (depth.channel >= inChannels) {
      depth.channel -= inChannels;
      ++depth.position;
    }
  };
  const auto copyStage = [&](Index stage) {
    float* pixelStage = shared + int(stage % kBuffers) * kBufferFloats;
    float* weightStage = pixelStage + kPixelFloats;
    if constexpr (WholeStages) {
      const bool reads = (inside >> first.position) & 1u;
      const float* from =
          reads ? pixel + grouped_conv::positionOffset(first.position, width) + (first.channel + tapPhase) * plane : in;
#pragma unroll
      for (int i = 0; i < kPixelCopies; ++i) {
        warp_mma::copyAsync4(pixelStage + (tapPhase + kTapPhases * i) * kPixelRow + tilePixel,
                             reads ? from + kTapPhases * i * plane : in, reads);
      }
    } else {
      Depth depth = first;
      advance(depth, Index(tapPhase));
#pragma unroll
      for (int i = 0; i < kPixelCopies; ++i) {
        if (i > 0) advance(depth, Index(kTapPhases));
        const bool reads = depth.position < 9 && ((inside >> depth.position) & 1u);
        warp_mma::copyAsync4(
            pixelStage + (tapPhase + kTapPhases * i) * kPixelRow + tilePixel,
            reads ? pixel + grouped_conv::positionOffset(depth.position, width) + depth.channel * plane : in, reads);
      }
    }
    if constexpr (StagedWeights) {
      // One 16-byte copy for each of the first kCopies threads: row t / kRowCopies of the stage,
      // its 4 columns from 4 (t % kRowCopies).
      constexpr int kRowCopies = kTileChannels / 4, kCopies = kStage * kRowCopies;
      static_assert(kCopies <= kThreads, "a stage's filters in one copy a thread");
      if (int(threadIdx.x) < kCopies) {
        const int row = int(threadIdx.x) / kRowCopies, column = 4 * (int(threadIdx.x) % kRowCopies);
        warp_mma::copyAsync16(weightStage + row * kChannelRow + column,
                              stagedWeight + (int64_t(stage) * kStage + row) * stagedColumns + column);
      }
    } else {
      Depth depth = first;
      advance(depth, Index(weightTap));
#pragma unroll
      for (int r = 0; r < kWeightCopies; ++r) {
        const int channel = weightChannel + kChannelsPerPass * r;
        const bool reads = depth.position < 9 && firstChannel + channel < outChannels;
        warp_mma::copyAsync4(
            weightStage + weightTap * kChannelRow + channel,
            reads ? groupWeight + (firstChannel + channel) * taps + depth.channel * 9 + depth.position : weight, reads);
      }
    }
    advance(first, Index(kStage));
  };

  // Each warp makes 32 pixels (two tiles of 16) x 8 ChannelTiles channels; its sums start at
  // their channel's bias. Lane (g, t) holds rows g and g + 8 of a tile, columns 2t and 2t + 1.
  const int warp = int(threadIdx.x) / 32;
  const Lane lane{int(threadIdx.x) % 32 / 4, int(threadIdx.x) % 4};
  const int g = lane.g, t = lane.t;
  const int warpPixel = (warp % 4) * kWarpPixels, warpChannel = (warp / 4) * (8 * ChannelTiles);
  float sums[2][ChannelTiles][4];
#pragma unroll
  for (int j = 0; j < ChannelTiles; ++j) {
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const Index channel = firstChannel + warpChannel + 8 * j + 2 * t + c;
      const float start = bias != nullptr && channel < outChannels ? bias[group * outChannels + channel] : 0.f;
#pragma unroll
      for (int i = 0; i < 2; ++i) sums[i][j][c] = sums[i][j][2 + c] = start;
    }
  }

  const auto multiplyStage = [&](Index stage) {
    const float* pixelStage = shared + int(stage % kBuffers) * kBufferFloats;
    multiplyWarpStage<Products>(sums, pixelStage, kPixelRow, warpPixel, pixelStage + kPixelFloats, kChannelRow,
                                warpChannel, lane);
  };
  runCopiedStages((taps + kStage - 1) / kStage, copyStage, multiplyStage);

#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const Index p = firstPixel + warpPixel + 16 * i + g + 8 * half;
      if (p >= pixels) continue;
      const Index image = p / plane, inPlane = p - image * plane;
      float* outPixel = out + (image * groups + group) * outChannels * plane + inPlane;
#pragma unroll
      for (int j = 0; j < ChannelTiles; ++j) {
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const Index channel = firstChannel + warpChannel + 8 * j + 2 * t + c;
          if (channel < outChannels) outPixel[channel * plane] = sums[i][j][2 * half + c];
        }
      }
    }
  }
}

/// Block (chunk, tile, group) of grouped_conv::weightGradientGrid(shape): the chunk's float sums
/// for 64 channels x 96 taps of one group, Products TF32 products a multiply as forwardKernel's,
/// into scratch[chunk][group][channel][tap] (LibTorch's order); kThreads threads; then
/// grouped_conv::addWeightChunksKernel adds the chunks in order, as for the fp32 kernel.
/// The products' depth is the chunk's pixels, 16 a stage: the output's gradient staged
/// [pixel][channel], the taps [pixel][tap], each warp 32 channels x 24 taps (2 x 3 tiles).
template <int Products, typename Index>
__global__ void __launch_bounds__(kThreads, 2)  // at most 128 registers: two blocks per SM
    weightGradientChunkKernel(const float* __restrict__ in, const float* __restrict__ gradOut,
                              float* __restrict__ scratch, GroupedConvShape shape) {
  static_assert(Products == 1 || Products == 3, "one TF32 product, or three of split operands");
  constexpr int kChannels = grouped_conv::kGradTileChannels, kTaps = grouped_conv::kGradTileTaps;  // 64, 96
  constexpr int kChannelRow = kChannels + 8, kTapRow = kTaps + 8;  // [pixel][channel], [pixel][tap]
  constexpr int kGradFloats = kStage * kChannelRow, kBufferFloats = kGradFloats + kStage * kTapRow;
  static_assert(kChannelRow % 32 == 8 && kTapRow % 32 == 8, "a fragment's loads fall in 32 banks");
  alignas(16) __shared__ float shared[kBuffers * kBufferFloats];

  const Index groups = Index(shape.groups), inChannels = Index(shape.inChannels), outChannels = Index(shape.outChannels);
  const Index height = Index(shape.height), width = Index(shape.width), plane = height * width;
  const Index pixels = Index(shape.images) * plane, taps = inChannels * 9;
  const grouped_conv::WeightGradientBlock<Index> block = grouped_conv::weightGradientBlockOf(pixels, taps);

  // Thread t copies pixel t % 16 of a stage: its gradient for channels t / 16 + 16 r, and its
  // taps t / 16 + 16 r, which are the same in every stage (where each reads from the pixel, and
  // its kernel position: 9 past the filter, nothing to read).
  constexpr int kRowsPerPass = kThreads / kStage;
  constexpr int kGradCopies = kChannels / kRowsPerPass, kTapCopies = kTaps / kRowsPerPass;
  const int stagePixel = int(threadIdx.x) % kStage, stageRow = int(threadIdx.x) / kStage;
  grouped_conv::TapPlace<Index> tapPlaces[kTapCopies];
#pragma unroll
  for (int r = 0; r < kTapCopies; ++r) {
    tapPlaces[r] = grouped_conv::tapPlaceOf(block.firstDepth + stageRow + kRowsPerPass * r, inChannels, plane, width);
  }
  // Stages are copied in order: each stage's pixel is kStage past the last one's.
  const grouped_conv::PixelStepper<Index> stepper(Index(kStage), width);
  auto at = grouped_conv::placeOf(block.chunkStart + stagePixel, true, plane, width);
  const auto copyStage = [&](Index stage) {
    float* gradStage = shared + int(stage % kBuffers) * kBufferFloats;
    float* tapStage = gradStage + kGradFloats;
    const bool inside = stage * kStage + stagePixel < block.chunkPixels;
    const Index imageGroup = inside ? at.image * groups + block.group : Index(0), inPlane = inside ? at.inPlane : Index(0);
    const float* image = in + imageGroup * inChannels * plane + inPlane;
    const float* grads = gradOut + imageGroup * outChannels * plane + inPlane;
    const unsigned insideMask = inside ? grouped_conv::insidePositions(at.row, at.column, height, width) : 0u;
    stepper.advance(at, plane, height, width);
#pragma unroll
    for (int r = 0; r < kGradCopies; ++r) {
      const int channel = stageRow + kRowsPerPass * r;
      const bool reads = inside && block.firstChannel + channel < outChannels;
      warp_mma::copyAsync4(gradStage + stagePixel * kChannelRow + channel,
                           reads ? grads + (block.firstChannel + channel) * plane : gradOut, reads);
    }
#pragma unroll
    for (int r = 0; r < kTapCopies; ++r) {
      const bool reads = grouped_conv::readsTap(insideMask, tapPlaces[r]);
      warp_mma::copyAsync4(tapStage + stagePixel * kTapRow + stageRow + kRowsPerPass * r,
                           reads ? image + tapPlaces[r].offset : in, reads);
    }
  };

  const int warp = int(threadIdx.x) / 32;
  const Lane lane{int(threadIdx.x) % 32 / 4, int(threadIdx.x) % 4};
  const int g = lane.g, t = lane.t;
  const int warpChannel = (warp % 2) * 32, warpTap = (warp / 2) * 24;
  float sums[2][3][4] = {};
  const auto multiplyStage = [&](Index stage) {
    const float* gradStage = shared + int(stage % kBuffers) * kBufferFloats;
    multiplyWarpStage<Products>(sums, gradStage, kChannelRow, warpChannel, gradStage + kGradFloats, kTapRow, warpTap,
                                lane);
  };
  runCopiedStages((block.chunkPixels + kStage - 1) / kStage, copyStage, multiplyStage);

  float* chunkSums = scratch + (int64_t(block.chunk) * groups + block.group) * outChannels * taps;
#pragma unroll
  for (int j = 0; j < 3; ++j) {
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const auto depth = grouped_conv::depthOf(block.firstDepth + warpTap + 8 * j + 2 * t + c, inChannels);
      if (depth.position >= 9) continue;
#pragma unroll
      for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const Index channel = block.firstChannel + warpChannel + 16 * i + g + 8 * half;
          if (channel < outChannels) {
            chunkSums[channel * taps + depth.channel * 9 + depth.position] = sums[i][j][2 * half + c];
          }
        }
      }
    }
  }
}

}  // namespace grouped_conv_mma_sync
}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
