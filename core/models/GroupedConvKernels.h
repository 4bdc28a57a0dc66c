// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The stacked CNN's second convolution on a GPU, our own kernels: a grouped 3x3 convolution
// (stride 1, padding 1), one group per member, as implicit matrix products, in fp32
// (GroupedConvKernels.cuh says how) and on tensor cores in TF32 or bf16
// (GroupedConvMmaKernels.cuh). Launchers of GroupedConvKernels.cu;
// plain C++, no LibTorch or CUDA headers.
#include <cstdint>

namespace ensemble::kernels {

/// `images` x (`groups` * `inChannels`) x `height` x `width` in, `groups` * `outChannels`
/// channels out, NCHW, float. Group g's outputs see only group g's inputs.
struct GroupedConvShape {
  int64_t images, groups, inChannels, outChannels, height, width;
};

/// out = conv(in, weight) + bias. `weight` [groups * outChannels][inChannels][3][3]; `bias`
/// [groups * outChannels] or null. Queued on `stream` (a cudaStream_t); returns the CUDA error
/// code of the launch (0: none). The input's gradient is this with the shape's channels
/// swapped and groupedConvInputGradientWeight's weight.
int launchGroupedConvForward(const float* in, const float* weight, const float* bias, float* out,
                             const GroupedConvShape& shape, void* stream);

/// Floats of scratch memory the weight gradient needs (its per-chunk partial sums).
int64_t groupedConvWeightGradientScratchFloats(const GroupedConvShape& shape);

/// gradWeight [groups * outChannels][inChannels][3][3] = sum over images and pixels of
/// gradOut (x) in, written (not added); `scratch` holds groupedConvWeightGradientScratchFloats.
int launchGroupedConvWeightGradient(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                                    const GroupedConvShape& shape, void* stream);

/// Floats of scratch memory launchGroupedConvForwardOnMmaSync's staged filters need.
int64_t groupedConvStagedWeightFloats(const GroupedConvShape& shape);
/// launchGroupedConvForward on tensor cores through mma.sync (GroupedConvMmaSyncKernels.cuh),
/// all float: `products` 3 splits each operand into two TF32 values and sums three products
/// (fp32's accuracy), 1 rounds each to TF32 once. The input's gradient is the same call, as for
/// launchGroupedConvForward. With `stagedWeight` (groupedConvStagedWeightFloats of scratch;
/// used where the shape's indices fit 32 bits) the filters are first laid out there so that the
/// kernel copies each stage's in 16-byte pieces; null: it gathers them from `weight` 4 bytes at
/// a time. The same result to the bit either way.
int launchGroupedConvForwardOnMmaSync(const float* in, const float* weight, float* stagedWeight, const float* bias,
                                      float* out, const GroupedConvShape& shape, int products, void* stream);

/// launchGroupedConvWeightGradient on tensor cores through mma.sync, all float, `products` as
/// for launchGroupedConvForwardOnMmaSync; the same scratch size.
int launchGroupedConvWeightGradientOnMmaSync(const float* in, const float* gradOut, float* scratch, float* gradWeight,
                                             const GroupedConvShape& shape, int products, void* stream);

/// What tensor cores multiply in GroupedConvMmaKernels.cuh (sums in float either way): float
/// operands rounded to TF32, or bfloat16 ones.
enum class TensorCoreOperands { TensorFloat32, BFloat16 };

/// launchGroupedConvForward on tensor cores: `in`, `weight` and `out` are float (TF32) or
/// bfloat16 as `operands` says; `bias` is float, or null.
int launchGroupedConvForwardOnTensorCores(const void* in, const void* weight, const float* bias, void* out,
                                          const GroupedConvShape& shape, TensorCoreOperands operands, void* stream);

/// launchGroupedConvWeightGradient on tensor cores: `in` and `gradOut` as `operands` says;
/// `scratch` and `gradWeight` float (the same scratch size).
int launchGroupedConvWeightGradientOnTensorCores(const void* in, const void* gradOut, float* scratch,
                                                 float* gradWeight, const GroupedConvShape& shape,
                                                 TensorCoreOperands operands, void* stream);

}  // namespace ensemble::kernels
