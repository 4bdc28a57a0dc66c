// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ConvReluPool.h"

#if ENSEMBLELAB_WITH_CUDA_KERNELS
#include "core/models/FusedLayersCuda.h"
#endif

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/common/AutocastState.h"
#include "core/common/Environment.h"
#include "core/models/Bf16OnFloatKernels.h"
#include "core/models/ConvReluPoolLoops.h"
#include "core/models/OrderedChunkSum.h"
#include "core/models/PanelWidth.h"
#include "core/models/ReluAvgPool.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;
namespace loops = conv_pool_loops;

/// Images per chunk of the backward pass. Each chunk's gradient is summed on its own and the
/// chunks are added in order, so the result is the same on any number of threads.
constexpr int64_t kImagesPerChunk = 8;

/// The images with a border of zeros: the loops then read every tap without a bounds test.
torch::Tensor padWithZeros(const torch::Tensor& images) {
  const int64_t count = images.size(0), height = images.size(2), width = images.size(3);
  torch::Tensor padded = torch::zeros({count, height + 2, width + 2}, images.options());
  padded.slice(1, 1, height + 1)
      .slice(2, 1, width + 1)
      .copy_(images.reshape({count, height, width}));
  return padded;
}

loops::ConvPoolShape shapeOf(const torch::Tensor& padded, int64_t channels) {
  loops::ConvPoolShape shape;
  shape.height = padded.size(1) - 2;
  shape.width = padded.size(2) - 2;
  shape.channels = channels;
  shape.wideRegisters = panel_product::useWideRegisters();
  return shape;
}

class ConvReluPoolFunction final : public torch::autograd::Function<ConvReluPoolFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& images,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const int64_t count = images.size(0), channels = weight.size(0);
    const torch::Tensor padded = padWithZeros(images);
    const torch::Tensor weightByTap = weight.detach().reshape({channels, 9}).t().contiguous();
    const torch::Tensor biasCopy = bias.detach().contiguous().clone();
    const loops::ConvPoolShape shape = shapeOf(padded, channels);
    torch::Tensor pooled =
        torch::empty({count, channels, shape.height / 2, shape.width / 2},
                     images.options().memory_format(torch::MemoryFormat::ChannelsLast));
    at::parallel_for(0, count, 1, [&](int64_t first, int64_t last) {
      loops::forwardImages(first, last, padded.data_ptr<float>(), weightByTap.data_ptr<float>(),
                           biasCopy.data_ptr<float>(), pooled.data_ptr<float>(), shape);
    });
    // Copies, not the parameters: the optimizer changes those in place after the backward.
    context->saved_data["padded"] = padded;
    context->saved_data["weight_by_tap"] = weightByTap;
    context->saved_data["bias"] = biasCopy;
    return pooled;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const torch::Tensor padded = context->saved_data["padded"].toTensor();
    const torch::Tensor weightByTap = context->saved_data["weight_by_tap"].toTensor();
    const torch::Tensor bias = context->saved_data["bias"].toTensor();
    const int64_t count = padded.size(0), channels = bias.size(0);
    const loops::ConvPoolShape shape = shapeOf(padded, channels);
    const torch::Tensor gradPooled =
        gradOutputs.front().to(torch::kFloat32).contiguous(torch::MemoryFormat::ChannelsLast);

    if (count == 0) return {torch::Tensor(), torch::zeros({channels, 1, 3, 3}, bias.options()), torch::zeros_like(bias)};
    const int64_t chunks = (count + kImagesPerChunk - 1) / kImagesPerChunk;
    torch::Tensor chunkWeights = torch::empty({chunks, 9, channels}, padded.options());
    torch::Tensor chunkBiases = torch::empty({chunks, channels}, padded.options());
    at::parallel_for(0, chunks, 1, [&](int64_t firstChunk, int64_t lastChunk) {
      for (int64_t chunk = firstChunk; chunk < lastChunk; ++chunk) {
        const int64_t first = chunk * kImagesPerChunk,
                      last = std::min(count, first + kImagesPerChunk);
        loops::backwardImages(first, last, padded.data_ptr<float>(), weightByTap.data_ptr<float>(),
                              bias.data_ptr<float>(), gradPooled.data_ptr<float>(),
                              chunkWeights[chunk].data_ptr<float>(),
                              chunkBiases[chunk].data_ptr<float>(), shape);
      }
    });
    const torch::Tensor gradWeightByTap = sumChunksInOrder(chunkWeights), gradBias = sumChunksInOrder(chunkBiases);
    const torch::Tensor gradWeight = gradWeightByTap.t().reshape({channels, 1, 3, 3}).contiguous();
    return {torch::Tensor(), gradWeight, gradBias};
  }
};

#if ENSEMBLELAB_WITH_CUDA_KERNELS
/// The GPU's fused layer (ConvReluPoolKernels.cuh). The pooled output is NCHW or
/// channels-last as the unfused conv2d's would be (the weight's layout decides), and of
/// autocast's type where autocast is on, computed in float either way.
class ConvReluPoolCudaFunction final : public torch::autograd::Function<ConvReluPoolCudaFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& images, const torch::Tensor& weight,
                               const torch::Tensor& bias, bool channelsLast, torch::ScalarType pooledType) {
    const torch::Tensor imagesInOrder = images.contiguous(), weightInOrder = weight.contiguous(),
                        biasInOrder = bias.contiguous();
    const auto layout = channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
    torch::Tensor pooled = torch::empty({images.size(0), weight.size(0), images.size(2) / 2, images.size(3) / 2},
                                        images.options().dtype(pooledType).memory_format(layout));
    if (pooled.numel() > 0) convReluPoolForwardOnCuda(imagesInOrder, weightInOrder, biasInOrder, pooled, channelsLast);
    // The parameters themselves, not copies: autograd refuses the backward if the optimizer
    // changed them in place before it.
    context->save_for_backward({imagesInOrder, weightInOrder, biasInOrder});
    context->saved_data["channels_last"] = channelsLast;
    context->saved_data["pooled_type"] = int64_t(pooledType);
    return pooled;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const auto pooledType = torch::ScalarType(context->saved_data["pooled_type"].toInt());
    const torch::Tensor &images = saved[0], &weight = saved[1], &bias = saved[2];
    const bool channelsLast = context->saved_data["channels_last"].toBool();
    const auto layout = channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
    const torch::Tensor& gradOutput = gradOutputs.front();
    if (images.size(0) == 0 || gradOutput.numel() == 0) {
      return {torch::Tensor(), torch::zeros_like(weight), torch::zeros_like(bias), torch::Tensor(), torch::Tensor()};
    }
    torch::Tensor gradWeight = torch::empty_like(weight), gradBias = torch::empty_like(bias);
    convReluPoolBackwardOnCuda(images, weight, bias, gradOutput.to(pooledType).contiguous(layout), gradWeight, gradBias,
                               channelsLast);
    return {torch::Tensor(), gradWeight, gradBias, torch::Tensor(), torch::Tensor()};
  }
};

/// Whether the user asked for LibTorch's ops on a GPU (read once, on a GPU's first step).
bool gpuFirstLayerUnfused() {
  static const bool unfused = environment::isSetTo(environment::kGpuFirstLayer, "unfused",
                                                   "LibTorch's unfused ops for the first layer on a GPU");
  return unfused;
}

/// Whether the GPU's fused kernels take these operands: one-channel float images that need
/// no gradient, and a float 3x3 filter bank with its bias, on one GPU.
bool convReluPoolFusesOnGpu(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias) {
  const auto isCudaFloat = [&](const torch::Tensor& t) {
    return t.defined() && t.is_cuda() && t.device() == images.device() && t.scalar_type() == torch::kFloat32;
  };
  return isCudaFloat(images) && isCudaFloat(weight) && isCudaFloat(bias) && images.dim() == 4 &&
         images.size(1) == 1 && images.size(2) >= 2 && images.size(3) >= 2 && weight.dim() == 4 &&
         weight.size(1) == 1 && weight.size(2) == 3 && weight.size(3) == 3 && weight.size(0) <= 65535 &&
         bias.dim() == 1 && bias.size(0) == weight.size(0) && !images.requires_grad() && !gpuFirstLayerUnfused();
}

/// The pooled output's type: autocast's where it is on and lower than float, as conv2d's would be.
torch::ScalarType pooledTypeOnGpu() {
  if (!autocastEnabled(true)) return torch::kFloat32;
  const torch::ScalarType type = autocastDtype(true);
  return type == torch::kBFloat16 || type == torch::kFloat16 ? type : torch::kFloat32;
}
#endif

}  // namespace

bool convReluPoolFusesOnCpu(const torch::Tensor& images, const torch::Tensor& weight) {
  const auto isCpuFloat = [](const torch::Tensor& t) {
    return t.is_cpu() && t.scalar_type() == torch::kFloat32;
  };
  return isCpuFloat(images) && isCpuFloat(weight) && images.dim() == 4 && images.size(1) == 1 &&
         images.size(2) >= 2 && images.size(3) >= 2 && weight.dim() == 4 && weight.size(1) == 1 &&
         weight.size(2) == 3 && weight.size(3) == 3 && weight.size(0) % loops::kChannelBlock == 0 &&
         !images.requires_grad() && !autocastEnabled(false);
}

torch::Tensor convReluAvgPool2x2(const torch::Tensor& images, const torch::Tensor& weight,
                                 const torch::Tensor& bias) {
  if (bf16AutocastOnCpu(images)) return asBf16OnFloatKernels(convReluAvgPool2x2, images, weight, bias);
  if (convReluPoolFusesOnCpu(images, weight) && bias.defined() &&
      bias.scalar_type() == torch::kFloat32) {
    return ConvReluPoolFunction::apply(images, weight, bias);
  }
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  if (convReluPoolFusesOnGpu(images, weight, bias)) {
    const bool channelsLast = weight.suggest_memory_format() == torch::MemoryFormat::ChannelsLast;
    return ConvReluPoolCudaFunction::apply(images, weight, bias, channelsLast, pooledTypeOnGpu());
  }
#endif
  namespace F = torch::nn::functional;
  return reluAvgPool2x2(F::conv2d(images, weight, F::Conv2dFuncOptions().bias(bias).padding(1)));
}

}  // namespace ensemble
