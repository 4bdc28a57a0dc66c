// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution (grouped 3x3, one group per member) on tensor cores:
// TF32 operands (--precision tf32) or bfloat16 ones (bf16 autocast), float sums. The same
// implicit matrix products as the fp32 kernels of GroupedConvKernels.cuh, every group in one
// launch, but each warp multiplies 16 x 16 tiles with CUDA's warp matrix functions
// (nvcuda::wmma, sm_80 and later). Compiled by nvcc in GroupedConvKernels.cu; run on the
// CPU by TestCudaKernelsOnCpu (tests/CudaOnCpu.h, tests/WmmaOnCpu.h).
//
// Why: cuDNN ran the fp32 grouped convolution one group at a time on the H200
// (docs/gpu-reports/2026-11-26-NVIDIA-H200-kernel-profile.md), and the whole stacked step ran
// only 1.69x (TF32) and 1.99x (bf16) faster than fp32 there (docs/BENCHMARKS.md), far from
// what tensor cores offer over the CUDA cores.
//
// Forward (and the input's gradient, the forward of the output's gradient with the filters
// transposed and flipped): a block makes 128 pixels x 64 channels of one group; its 8 warps
// 32 x 32 each (2 x 2 tiles of 16 x 16). A stage is 2 fragment depths of taps (16 in TF32, 32
// in bf16): the im2col tile [tap][pixel] and the filters [channel][tap] in shared memory, two
// buffers (grouped_conv::runStages). The sums go through shared memory to be written a
// channel at a time, coalesced, with the bias added, rounded once to the element type.
//
// Weight gradient: a block sums a chunk of grouped_conv::kChunkPixels pixels for 64 channels
// x 96 taps of one group (warps 16 channels x 48 taps), into the same per-chunk scratch as the
// fp32 kernel, whose addWeightChunksKernel adds the chunks in order. Float sums, no atomics:
// the same bits on every run.
//
// The products' depth runs kernel position first, input channel second, as in the fp32
// kernels (GroupedConvKernels.cuh says why): here it matters more, since the gather would
// otherwise take more instructions than the tensor cores' work.
//
// Shared rows are padded by 16 bytes: the 8 rows a fragment load reads at once then fall in
// different banks, and every fragment's address stays 256-bit aligned, as wmma requires.
#include <cstdint>

#ifdef __CUDACC__
#include <mma.h>
#endif

#include "core/models/CudaElements.cuh"
#include "core/models/GroupedConvKernels.cuh"

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {
namespace grouped_conv_mma {

namespace wmma = nvcuda::wmma;
using grouped_conv::kThreads;

/// What a tensor core multiplies for an element type: TF32 fragments of float (8 deep, each
/// value rounded to TF32 as it is staged), or bfloat16 (16 deep).
template <typename Element>
struct Operands;
template <>
struct Operands<float> {
  using Fragment = wmma::precision::tf32;
  static constexpr int kDepth = 8;
  __device__ static float staged(float v) { return wmma::__float_to_tf32(v); }
};
template <>
struct Operands<BFloat16Element> {
  using Fragment = BFloat16Element;
  static constexpr int kDepth = 16;
  __device__ static BFloat16Element staged(BFloat16Element v) { return v; }
};

constexpr int kPadBytes = 16;

// Forward.
constexpr int kTilePixels = 128, kTileChannels = 64;
constexpr int kWarpPixels = 32, kWarpChannels = 32;  // 4 x 2 warps
constexpr int kOutRow = kTilePixels + 4;             // the sums' tile, [channel][pixel], in float

// Weight gradient (the tile of grouped_conv's fp32 kernel, so its grid and chunk sums).
constexpr int kGradTileChannels = grouped_conv::kGradTileChannels;  // 64
constexpr int kGradTileTaps = grouped_conv::kGradTileTaps;          // 96
constexpr int kGradWarpChannels = 16, kGradWarpTaps = 48;           // 4 x 2 warps
constexpr int kGradOutRow = kGradTileTaps + 4;                      // [channel][tap], in float

template <typename Element>
struct Tiles {
  static constexpr int kDepth = Operands<Element>::kDepth;
  static constexpr int kStage = 2 * kDepth;  // taps (forward) or pixels (weight gradient) per stage
  static constexpr int kPad = kPadBytes / int(sizeof(Element));
  static constexpr int kPixelRow = kTilePixels + kPad;  // forward: [tap][pixel]
  static constexpr int kStageRow = kStage + kPad;       // forward: [channel][tap]; gradient: [channel or tap][pixel]
  static constexpr int kForwardPixelBytes = kStage * kPixelRow * int(sizeof(Element));
  static constexpr int kForwardWeightBytes = kTileChannels * kStageRow * int(sizeof(Element));
  static constexpr int kForwardStagingBytes = 2 * (kForwardPixelBytes + kForwardWeightBytes);
  static constexpr int kForwardOutBytes = kTileChannels * kOutRow * int(sizeof(float));
  static constexpr int kForwardSharedBytes =
      kForwardStagingBytes > kForwardOutBytes ? kForwardStagingBytes : kForwardOutBytes;
  static constexpr int kGradBytes = kGradTileChannels * kStageRow * int(sizeof(Element));
  static constexpr int kTapBytes = kGradTileTaps * kStageRow * int(sizeof(Element));
  static constexpr int kGradientStagingBytes = 2 * (kGradBytes + kTapBytes);
  static constexpr int kGradientOutBytes = kGradTileChannels * kGradOutRow * int(sizeof(float));
  static constexpr int kGradientSharedBytes =
      kGradientStagingBytes > kGradientOutBytes ? kGradientStagingBytes : kGradientOutBytes;
  static_assert(kForwardSharedBytes <= 48 * 1024 && kGradientSharedBytes <= 48 * 1024, "static shared memory");
  static_assert(kForwardPixelBytes % 32 == 0 && kForwardWeightBytes % 32 == 0 && kGradBytes % 32 == 0 &&
                    kTapBytes % 32 == 0,
                "every buffer starts 256-bit aligned");
};

inline dim3 forwardGrid(const GroupedConvShape& shape) {
  return dim3(unsigned(grouped_conv::ceilDiv(grouped_conv::pixelsOf(shape), kTilePixels)),
              unsigned(grouped_conv::ceilDiv(shape.outChannels, kTileChannels)), unsigned(shape.groups));
}

/// Whether every stage of the forward is one kernel position (inChannels a multiple of the
/// stage's depth): the launchers' and the tests' choice of forwardKernel's WholeStages.
template <typename Element>
inline bool wholeStagesFor(const GroupedConvShape& shape) {
  return shape.inChannels % Tiles<Element>::kStage == 0;
}

/// out = conv(in, weight) + bias for one tile, in Element, summed in float; grid
/// forwardGrid(shape), kThreads threads, WholeStages = wholeStagesFor<Element>(shape).
/// `bias` (float) may be null.
template <typename Element, typename Index, bool WholeStages>
__global__ void __launch_bounds__(kThreads, 2)  // at most 128 registers: two blocks per SM
    forwardKernel(const Element* __restrict__ in, const Element* __restrict__ weight, const float* __restrict__ bias,
                  Element* __restrict__ out, GroupedConvShape shape) {
  using Tile = Tiles<Element>;
  using Fragment = typename Operands<Element>::Fragment;
  constexpr int kDepth = Tile::kDepth, kStage = Tile::kStage;
  alignas(128) __shared__ unsigned char shared[Tile::kForwardSharedBytes];
  const auto pixelTile = [&](int buffer) {
    return reinterpret_cast<Element*>(shared + buffer * Tile::kForwardPixelBytes);
  };
  const auto weightTile = [&](int buffer) {
    return reinterpret_cast<Element*>(shared + 2 * Tile::kForwardPixelBytes + buffer * Tile::kForwardWeightBytes);
  };

  const Index groups = Index(shape.groups), inChannels = Index(shape.inChannels), outChannels = Index(shape.outChannels);
  const Index height = Index(shape.height), width = Index(shape.width), plane = height * width;
  const Index pixels = Index(shape.images) * plane, taps = inChannels * 9;
  const Index group = Index(blockIdx.z), firstPixel = Index(blockIdx.x) * kTilePixels;
  const Index firstChannel = Index(blockIdx.y) * kTileChannels;

  // Thread t stages pixel t % 128 at depths t / 128 + 2 i of a stage, and the filters' depth
  // t % kStage for channels t / kStage + kChannelsPerPass r: a warp's shared stores are
  // consecutive, and so are its loads of pixels.
  constexpr int kPixelLoads = kStage * kTilePixels / kThreads;
  constexpr int kWeightLoads = kStage * kTileChannels / kThreads;
  constexpr int kChannelsPerPass = kThreads / kStage;
  const int tilePixel = int(threadIdx.x) % kTilePixels, tapPhase = int(threadIdx.x) / kTilePixels;
  const int weightTap = int(threadIdx.x) % kStage, weightChannel = int(threadIdx.x) / kStage;
  const bool loadsPixel = firstPixel + tilePixel < pixels;
  const auto at = grouped_conv::placeOf(firstPixel + tilePixel, loadsPixel, plane, width);
  const Element* pixel = in + (at.image * groups + group) * inChannels * plane + at.inPlane;  // its first channel
  const unsigned inside = loadsPixel ? grouped_conv::insidePositions(at.row, at.column, height, width) : 0u;
  const Element* groupWeight = weight + group * outChannels * taps;
  const Element zero = fromFloat<Element>(0.f);

  using Depth = grouped_conv::Depth<Index>;
  Element stagedPixels[kPixelLoads], stagedWeights[kWeightLoads];
  const auto loadStage = [&](Index firstDepth) {
    const Depth first = grouped_conv::depthOf(firstDepth, inChannels);
    if constexpr (WholeStages) {
      const bool reads = (inside >> first.position) & 1u;
      const Index offset =
          reads ? grouped_conv::positionOffset(first.position, width) + (first.channel + tapPhase) * plane : Index(0);
#pragma unroll
      for (int i = 0; i < kPixelLoads; ++i) stagedPixels[i] = reads ? pixel[offset + 2 * i * plane] : zero;
    } else {
      Depth depth{first.position, first.channel + tapPhase};
#pragma unroll
      for (int i = 0; i < kPixelLoads; ++i, depth.channel += 2) {
        while (depth.channel >= inChannels) {
          depth.channel -= inChannels;
          ++depth.position;
        }
        const bool reads = depth.position < 9 && ((inside >> depth.position) & 1u);
        stagedPixels[i] =
            reads ? pixel[grouped_conv::positionOffset(depth.position, width) + depth.channel * plane] : zero;
      }
    }
    // The filters' depth firstDepth + weightTap: one kernel position and input channel.
    const Depth depth = WholeStages ? Depth{first.position, first.channel + weightTap}
                                    : grouped_conv::depthOf(firstDepth + weightTap, inChannels);
#pragma unroll
    for (int r = 0; r < kWeightLoads; ++r) {
      const Index outChannel = firstChannel + weightChannel + kChannelsPerPass * r;
      stagedWeights[r] = depth.position < 9 && outChannel < outChannels
                             ? groupWeight[outChannel * taps + depth.channel * 9 + depth.position]
                             : zero;
    }
  };
  const auto storeStage = [&](int buffer) {
    Element* pixelStage = pixelTile(buffer);
    Element* weightStage = weightTile(buffer);
#pragma unroll
    for (int i = 0; i < kPixelLoads; ++i) {
      pixelStage[(tapPhase + 2 * i) * Tile::kPixelRow + tilePixel] = Operands<Element>::staged(stagedPixels[i]);
    }
#pragma unroll
    for (int r = 0; r < kWeightLoads; ++r) {
      weightStage[(weightChannel + kChannelsPerPass * r) * Tile::kStageRow + weightTap] =
          Operands<Element>::staged(stagedWeights[r]);
    }
  };

  const int warp = int(threadIdx.x) / 32;
  const int warpPixel = (warp % 4) * kWarpPixels, warpChannel = (warp / 4) * kWarpChannels;
  wmma::fragment<wmma::accumulator, 16, 16, kDepth, float> sums[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(sums[i][j], 0.f);
  }
  const auto multiplyStage = [&](int buffer) {
    const Element* pixelStage = pixelTile(buffer);
    const Element* weightStage = weightTile(buffer);
#pragma unroll
    for (int k = 0; k < kStage; k += kDepth) {
      wmma::fragment<wmma::matrix_a, 16, 16, kDepth, Fragment, wmma::col_major> pixelFragments[2];
      wmma::fragment<wmma::matrix_b, 16, 16, kDepth, Fragment, wmma::col_major> weightFragments[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        wmma::load_matrix_sync(pixelFragments[i], pixelStage + k * Tile::kPixelRow + warpPixel + 16 * i,
                               Tile::kPixelRow);
      }
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        wmma::load_matrix_sync(weightFragments[j], weightStage + (warpChannel + 16 * j) * Tile::kStageRow + k,
                               Tile::kStageRow);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(sums[i][j], pixelFragments[i], weightFragments[j], sums[i][j]);
      }
    }
  };
  grouped_conv::runStages((taps + kStage - 1) / kStage, Index(kStage), loadStage, storeStage, multiplyStage);

  // runStages ends at a barrier: the staging buffers now hold the sums, [channel][pixel].
  float* outTile = reinterpret_cast<float*>(shared);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(outTile + (warpChannel + 16 * j) * kOutRow + warpPixel + 16 * i, sums[i][j], kOutRow,
                              wmma::mem_col_major);
    }
  }
  __syncthreads();
  if (!loadsPixel) return;
  Element* outPixel = out + (at.image * groups + group) * outChannels * plane + at.inPlane;
  for (int c = tapPhase; c < kTileChannels; c += kThreads / kTilePixels) {
    const Index channel = firstChannel + c;
    if (channel >= outChannels) break;
    const float start = bias != nullptr ? bias[group * outChannels + channel] : 0.f;
    outPixel[channel * plane] = fromFloat<Element>(outTile[c * kOutRow + tilePixel] + start);
  }
}

/// Block (chunk, tile, group): the chunk's float sums for 64 channels x 96 taps of one group,
/// into scratch[chunk][group][channel][tap]. Grid grouped_conv::weightGradientGrid(shape),
/// kThreads threads; then grouped_conv::addWeightChunksKernel.
template <typename Element, typename Index>
__global__ void __launch_bounds__(kThreads, 2)  // at most 128 registers: two blocks per SM
    weightGradientChunkKernel(const Element* __restrict__ in, const Element* __restrict__ gradOut,
                              float* __restrict__ scratch, GroupedConvShape shape) {
  using Tile = Tiles<Element>;
  using Fragment = typename Operands<Element>::Fragment;
  constexpr int kDepth = Tile::kDepth, kStage = Tile::kStage;
  alignas(128) __shared__ unsigned char shared[Tile::kGradientSharedBytes];
  const auto gradTile = [&](int buffer) { return reinterpret_cast<Element*>(shared + buffer * Tile::kGradBytes); };
  const auto tapTile = [&](int buffer) {
    return reinterpret_cast<Element*>(shared + 2 * Tile::kGradBytes + buffer * Tile::kTapBytes);
  };

  const Index groups = Index(shape.groups), inChannels = Index(shape.inChannels), outChannels = Index(shape.outChannels);
  const Index height = Index(shape.height), width = Index(shape.width), plane = height * width;
  const Index pixels = Index(shape.images) * plane, taps = inChannels * 9;
  const grouped_conv::WeightGradientBlock<Index> block = grouped_conv::weightGradientBlockOf(pixels, taps);

  // Thread t stages pixel t % kStage of each stage: its gradient for channels t / kStage +
  // kRowsPerPass r, and its taps at depths t / kStage + kRowsPerPass r of the tile.
  constexpr int kRowsPerPass = kThreads / kStage;
  constexpr int kGradLoads = kGradTileChannels / kRowsPerPass, kTapLoads = kGradTileTaps / kRowsPerPass;
  const int stagePixel = int(threadIdx.x) % kStage, stageRow = int(threadIdx.x) / kStage;
  const Element zero = fromFloat<Element>(0.f);
  grouped_conv::TapPlace<Index> tapPlaces[kTapLoads];
#pragma unroll
  for (int r = 0; r < kTapLoads; ++r) {
    tapPlaces[r] = grouped_conv::tapPlaceOf(block.firstDepth + stageRow + kRowsPerPass * r, inChannels, plane, width);
  }
  Element stagedGrads[kGradLoads], stagedTaps[kTapLoads];
  // Stages are loaded in order: each stage's pixel is kStage past the last one's.
  const grouped_conv::PixelStepper<Index> stepper(Index(kStage), width);
  auto at = grouped_conv::placeOf(block.chunkStart + stagePixel, true, plane, width);
  const auto loadStage = [&](Index stageStart) {
    const bool inside = stageStart + stagePixel < block.chunkPixels;
    const Index imageGroup = inside ? at.image * groups + block.group : Index(0), inPlane = inside ? at.inPlane : Index(0);
    const Element* image = in + imageGroup * inChannels * plane + inPlane;
    const Element* grads = gradOut + imageGroup * outChannels * plane + inPlane;
    const unsigned insideMask = inside ? grouped_conv::insidePositions(at.row, at.column, height, width) : 0u;
    stepper.advance(at, plane, height, width);
#pragma unroll
    for (int r = 0; r < kGradLoads; ++r) {
      const Index channel = block.firstChannel + stageRow + kRowsPerPass * r;
      stagedGrads[r] = inside && channel < outChannels ? grads[channel * plane] : zero;
    }
#pragma unroll
    for (int r = 0; r < kTapLoads; ++r) {
      stagedTaps[r] = grouped_conv::readsTap(insideMask, tapPlaces[r]) ? image[tapPlaces[r].offset] : zero;
    }
  };
  const auto storeStage = [&](int buffer) {
    Element* grads = gradTile(buffer);
    Element* tapValues = tapTile(buffer);
#pragma unroll
    for (int r = 0; r < kGradLoads; ++r) {
      grads[(stageRow + kRowsPerPass * r) * Tile::kStageRow + stagePixel] = Operands<Element>::staged(stagedGrads[r]);
    }
#pragma unroll
    for (int r = 0; r < kTapLoads; ++r) {
      tapValues[(stageRow + kRowsPerPass * r) * Tile::kStageRow + stagePixel] =
          Operands<Element>::staged(stagedTaps[r]);
    }
  };

  const int warp = int(threadIdx.x) / 32;
  const int warpChannel = (warp % 4) * kGradWarpChannels, warpTap = (warp / 4) * kGradWarpTaps;
  constexpr int kFragments = kGradWarpTaps / 16;
  wmma::fragment<wmma::accumulator, 16, 16, kDepth, float> sums[kFragments];
#pragma unroll
  for (int j = 0; j < kFragments; ++j) wmma::fill_fragment(sums[j], 0.f);
  const auto multiplyStage = [&](int buffer) {
    const Element* grads = gradTile(buffer);
    const Element* tapValues = tapTile(buffer);
#pragma unroll
    for (int k = 0; k < kStage; k += kDepth) {
      wmma::fragment<wmma::matrix_a, 16, 16, kDepth, Fragment, wmma::row_major> gradFragment;
      wmma::load_matrix_sync(gradFragment, grads + warpChannel * Tile::kStageRow + k, Tile::kStageRow);
#pragma unroll
      for (int j = 0; j < kFragments; ++j) {
        wmma::fragment<wmma::matrix_b, 16, 16, kDepth, Fragment, wmma::col_major> tapFragment;
        wmma::load_matrix_sync(tapFragment, tapValues + (warpTap + 16 * j) * Tile::kStageRow + k, Tile::kStageRow);
        wmma::mma_sync(sums[j], gradFragment, tapFragment, sums[j]);
      }
    }
  };
  grouped_conv::runStages((block.chunkPixels + kStage - 1) / kStage, Index(kStage), loadStage, storeStage,
                          multiplyStage);

  // runStages ends at a barrier: the staging buffers now hold the sums, [channel][tap].
  float* outTile = reinterpret_cast<float*>(shared);
#pragma unroll
  for (int j = 0; j < kFragments; ++j) {
    wmma::store_matrix_sync(outTile + warpChannel * kGradOutRow + warpTap + 16 * j, sums[j], kGradOutRow,
                            wmma::mem_row_major);
  }
  __syncthreads();
  float* chunkSums = scratch + (int64_t(block.chunk) * groups + block.group) * outChannels * taps;
  for (int e = int(threadIdx.x); e < kGradTileChannels * kGradTileTaps; e += kThreads) {
    const int c = e / kGradTileTaps, t = e - c * kGradTileTaps;
    const Index channel = block.firstChannel + c;
    const auto depth = grouped_conv::depthOf(block.firstDepth + t, inChannels);
    if (channel >= outChannels || depth.position >= 9) continue;
    chunkSums[channel * taps + depth.channel * 9 + depth.position] = outTile[c * kGradOutRow + t];  // LibTorch's order
  }
}

}  // namespace grouped_conv_mma
}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
