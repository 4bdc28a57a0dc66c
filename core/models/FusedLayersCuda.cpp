// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/FusedLayersCuda.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#include <torch/torch.h>

#include "core/common/Environment.h"
#include "core/models/ConvReluPoolKernels.h"
#include "core/models/GroupedConvKernels.h"
#include "core/models/ReluAvgPoolKernels.h"

namespace ensemble {
namespace {

kernels::PoolElement elementOf(const torch::Tensor& t) {
  switch (t.scalar_type()) {
    case torch::kBFloat16: return kernels::PoolElement::BFloat16;
    case torch::kFloat16: return kernels::PoolElement::Float16;
    default: return kernels::PoolElement::Float32;
  }
}

kernels::PoolShape shapeOf(const torch::Tensor& input, bool channelsLast) {
  return {input.size(0), input.size(1), input.size(2), input.size(3), channelsLast};
}

void check(int error, const char* layer, const char* what) {
  TORCH_CHECK(error == 0, "EnsembleLab's ", layer, " kernels (", what, ") failed to launch: ",
              cudaGetErrorString(cudaError_t(error)));
}

constexpr const char* kPool = "fused ReLU + average pool";
constexpr const char* kFirstLayer = "fused convolution + ReLU + average pool";
constexpr const char* kGroupedConv = "grouped convolution";

kernels::ConvPoolShape convPoolShapeOf(const torch::Tensor& images, const torch::Tensor& weight, bool channelsLast) {
  return {images.size(0), weight.size(0), images.size(2), images.size(3), channelsLast};
}

kernels::GroupedConvShape groupedShapeOf(const torch::Tensor& in, const torch::Tensor& out, int64_t groups) {
  return {in.size(0), groups, in.size(1) / groups, out.size(1) / groups, in.size(2), in.size(3)};
}

/// The tensor cores' operands for `arithmetic`, checked against the tensors' type: a mismatch
/// would have the kernels read the memory as the other type.
kernels::TensorCoreOperands tensorCoreOperandsOf(const torch::Tensor& in, GroupedConvArithmetic arithmetic) {
  const bool bfloat16 = arithmetic == GroupedConvArithmetic::BFloat16;
  TORCH_CHECK(in.scalar_type() == (bfloat16 ? torch::kBFloat16 : torch::kFloat32),
              "EnsembleLab's grouped convolution on tensor cores was given ", in.scalar_type(), " operands for ",
              bfloat16 ? "bf16" : "TF32", " arithmetic");
  return bfloat16 ? kernels::TensorCoreOperands::BFloat16 : kernels::TensorCoreOperands::TensorFloat32;
}

/// ENSEMBLELAB_MMA_SYNC_WEIGHTS, read once: "staged" lays the filters out for 16-byte copies
/// before the mma.sync forward (GroupedConvMmaSyncKernels.cuh), unset or "gathered" has it
/// gather them 4 bytes at a time as LibTorch stores them.
bool mmaSyncWeightsStaged() {
  static const bool staged = environment::oneOf(environment::kMmaSyncWeights, {"gathered", "staged"},
                                                "how the mma.sync convolution copies its filters") == "staged";
  return staged;
}

}  // namespace

void forwardOnCuda(const torch::Tensor& input, torch::Tensor& output, bool channelsLast) {
  const c10::cuda::CUDAGuard onDevice(input.device());
  check(kernels::launchReluAvgPoolForward(input.data_ptr(), output.data_ptr(), shapeOf(input, channelsLast),
                                          elementOf(input), at::cuda::getCurrentCUDAStream().stream()),
        kPool, "forward");
}

void backwardOnCuda(const torch::Tensor& input, const torch::Tensor& gradOutput, torch::Tensor& gradInput,
                    bool channelsLast) {
  const c10::cuda::CUDAGuard onDevice(input.device());
  check(kernels::launchReluAvgPoolBackward(input.data_ptr(), gradOutput.data_ptr(), gradInput.data_ptr(),
                                           shapeOf(input, channelsLast), elementOf(input),
                                           at::cuda::getCurrentCUDAStream().stream()),
        kPool, "backward");
}

void convReluPoolForwardOnCuda(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias,
                               torch::Tensor& pooled, bool channelsLast) {
  const c10::cuda::CUDAGuard onDevice(images.device());
  check(kernels::launchConvReluPoolForward(images.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
                                           pooled.data_ptr(), convPoolShapeOf(images, weight, channelsLast),
                                           elementOf(pooled), at::cuda::getCurrentCUDAStream().stream()),
        kFirstLayer, "forward");
}

void convReluPoolBackwardOnCuda(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias,
                                const torch::Tensor& gradPooled, torch::Tensor& gradWeight, torch::Tensor& gradBias,
                                bool channelsLast) {
  const c10::cuda::CUDAGuard onDevice(images.device());
  const kernels::ConvPoolShape shape = convPoolShapeOf(images, weight, channelsLast);
  torch::Tensor scratch = torch::empty({kernels::convReluPoolScratchFloats(shape)}, images.options());
  check(kernels::launchConvReluPoolBackward(images.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
                                            gradPooled.data_ptr(), scratch.data_ptr<float>(),
                                            gradWeight.data_ptr<float>(), gradBias.data_ptr<float>(), shape,
                                            elementOf(gradPooled), at::cuda::getCurrentCUDAStream().stream()),
        kFirstLayer, "backward");
}

void groupedConvForwardOnCuda(const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias,
                              torch::Tensor& out, int64_t groups, GroupedConvArithmetic arithmetic, bool onMmaSync) {
  const c10::cuda::CUDAGuard onDevice(in.device());
  const kernels::GroupedConvShape shape = groupedShapeOf(in, out, groups);
  const float* biasValues = bias.defined() ? bias.data_ptr<float>() : nullptr;
  void* stream = at::cuda::getCurrentCUDAStream().stream();
  if (onMmaSync && arithmetic != GroupedConvArithmetic::BFloat16) {
    const int products = arithmetic == GroupedConvArithmetic::Float32 ? 3 : 1;
    torch::Tensor staged;
    if (mmaSyncWeightsStaged()) {
      staged = torch::empty({kernels::groupedConvStagedWeightFloats(shape)}, weight.options());
    }
    check(kernels::launchGroupedConvForwardOnMmaSync(in.data_ptr<float>(), weight.data_ptr<float>(),
                                                     staged.defined() ? staged.data_ptr<float>() : nullptr,
                                                     biasValues, out.data_ptr<float>(), shape, products, stream),
          kGroupedConv, "forward on mma.sync");
    return;
  }
  if (arithmetic == GroupedConvArithmetic::Float32) {
    check(kernels::launchGroupedConvForward(in.data_ptr<float>(), weight.data_ptr<float>(), biasValues,
                                            out.data_ptr<float>(), shape, stream),
          kGroupedConv, "forward");
    return;
  }
  check(kernels::launchGroupedConvForwardOnTensorCores(in.data_ptr(), weight.data_ptr(), biasValues, out.data_ptr(),
                                                       shape, tensorCoreOperandsOf(in, arithmetic), stream),
        kGroupedConv, "forward on tensor cores");
}

void groupedConvWeightGradientOnCuda(const torch::Tensor& in, const torch::Tensor& gradOut, torch::Tensor& gradWeight,
                                     int64_t groups, GroupedConvArithmetic arithmetic, bool onMmaSync) {
  const c10::cuda::CUDAGuard onDevice(in.device());
  const kernels::GroupedConvShape shape = groupedShapeOf(in, gradOut, groups);
  torch::Tensor scratch =
      torch::empty({kernels::groupedConvWeightGradientScratchFloats(shape)}, in.options().dtype(torch::kFloat32));
  void* stream = at::cuda::getCurrentCUDAStream().stream();
  if (onMmaSync && arithmetic != GroupedConvArithmetic::BFloat16) {
    const int products = arithmetic == GroupedConvArithmetic::Float32 ? 3 : 1;
    check(kernels::launchGroupedConvWeightGradientOnMmaSync(in.data_ptr<float>(), gradOut.data_ptr<float>(),
                                                            scratch.data_ptr<float>(), gradWeight.data_ptr<float>(),
                                                            shape, products, stream),
          kGroupedConv, "weight gradient on mma.sync");
    return;
  }
  if (arithmetic == GroupedConvArithmetic::Float32) {
    check(kernels::launchGroupedConvWeightGradient(in.data_ptr<float>(), gradOut.data_ptr<float>(),
                                                   scratch.data_ptr<float>(), gradWeight.data_ptr<float>(), shape,
                                                   stream),
          kGroupedConv, "weight gradient");
    return;
  }
  check(kernels::launchGroupedConvWeightGradientOnTensorCores(in.data_ptr(), gradOut.data_ptr(),
                                                              scratch.data_ptr<float>(), gradWeight.data_ptr<float>(),
                                                              shape, tensorCoreOperandsOf(in, arithmetic), stream),
        kGroupedConv, "weight gradient on tensor cores");
}

}  // namespace ensemble
