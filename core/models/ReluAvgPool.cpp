// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ReluAvgPool.h"

#if ENSEMBLELAB_WITH_CUDA_KERNELS
#include "core/models/FusedLayersCuda.h"
#endif

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/models/ReluAvgPoolLoops.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

/// Planes (image x channel) per parallel chunk: enough work to be worth a thread.
constexpr int64_t kPlanesPerChunk = 16;
/// Rows of pixels (image x row, every channel) per parallel chunk in channels-last.
constexpr int64_t kRowsPerChunk = 4;

void poolForward(const float* input, float* output, int64_t planes, int64_t height, int64_t width) {
  at::parallel_for(0, planes, kPlanesPerChunk, [&](int64_t first, int64_t last) {
    pool_loops::forwardPlanes(first, last, input, output, height, width);
  });
}

void poolBackward(const float* input, const float* gradOutput, float* gradInput, int64_t planes,
                  int64_t height, int64_t width) {
  at::parallel_for(0, planes, kPlanesPerChunk, [&](int64_t first, int64_t last) {
    pool_loops::backwardPlanes(first, last, input, gradOutput, gradInput, height, width);
  });
}

void poolForwardChannelsLast(const float* input, float* output, int64_t images, int64_t channels,
                             int64_t height, int64_t width) {
  at::parallel_for(0, images * (height / 2), kRowsPerChunk, [&](int64_t first, int64_t last) {
    pool_loops::forwardRowsChannelsLast(first, last, input, output, channels, height, width);
  });
}

void poolBackwardChannelsLast(const float* input, const float* gradOutput, float* gradInput,
                              int64_t images, int64_t channels, int64_t height, int64_t width) {
  at::parallel_for(0, images * height, kRowsPerChunk, [&](int64_t first, int64_t last) {
    pool_loops::backwardRowsChannelsLast(first, last, input, gradOutput, gradInput, channels,
                                         height, width);
  });
}

/// The CPU's loops on `input` (float32, contiguous in its layout) into `output`.
void forwardOnCpu(const torch::Tensor& input, torch::Tensor& output, bool channelsLast) {
  const int64_t batch = input.size(0), channels = input.size(1);
  const int64_t height = input.size(2), width = input.size(3);
  if (channelsLast) {
    poolForwardChannelsLast(input.data_ptr<float>(), output.data_ptr<float>(), batch, channels,
                            height, width);
  } else {
    poolForward(input.data_ptr<float>(), output.data_ptr<float>(), batch * channels, height, width);
  }
}

void backwardOnCpu(const torch::Tensor& input, const torch::Tensor& gradOutput,
                   torch::Tensor& gradInput, bool channelsLast) {
  if (channelsLast) {
    poolBackwardChannelsLast(input.data_ptr<float>(), gradOutput.data_ptr<float>(),
                             gradInput.data_ptr<float>(), input.size(0), input.size(1),
                             input.size(2), input.size(3));
  } else {
    poolBackward(input.data_ptr<float>(), gradOutput.data_ptr<float>(), gradInput.data_ptr<float>(),
                 input.size(0) * input.size(1), input.size(2), input.size(3));
  }
}

torch::MemoryFormat layoutOf(bool channelsLast) {
  return channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

/// Whether the fused kernels take `input`'s device and element type.
bool fusedFor(const torch::Tensor& input) {
  const auto type = input.scalar_type();
  if (input.is_cpu()) return type == torch::kFloat32;
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  if (input.is_cuda())
    return type == torch::kFloat32 || type == torch::kBFloat16 || type == torch::kFloat16;
#endif
  return false;
}

/// One autograd function for both devices: the output and the input's gradient keep the
/// input's layout, and the CPU's loops or the GPU's kernels fill them.
class ReluAvgPool2x2Function final : public torch::autograd::Function<ReluAvgPool2x2Function> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input,
                               bool channelsLast) {
    torch::Tensor output =
        torch::empty({input.size(0), input.size(1), input.size(2) / 2, input.size(3) / 2},
                     input.options().memory_format(layoutOf(channelsLast)));
#if ENSEMBLELAB_WITH_CUDA_KERNELS
    if (input.is_cuda()) {
      forwardOnCuda(input, output, channelsLast);
    } else
#endif
    {
      forwardOnCpu(input, output, channelsLast);
    }
    context->save_for_backward({input});
    context->saved_data["channels_last"] = channelsLast;
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const torch::Tensor input = context->get_saved_variables().front();
    const bool channelsLast = context->saved_data["channels_last"].toBool();
    // The pooled gradient comes in either layout (flatten's backward gives NCHW).
    const torch::Tensor gradOutput =
        gradOutputs.front().to(input.scalar_type()).contiguous(layoutOf(channelsLast));
    torch::Tensor gradInput =
        torch::empty(input.sizes(), input.options().memory_format(layoutOf(channelsLast)));
#if ENSEMBLELAB_WITH_CUDA_KERNELS
    if (input.is_cuda()) {
      backwardOnCuda(input, gradOutput, gradInput, channelsLast);
    } else
#endif
    {
      backwardOnCpu(input, gradOutput, gradInput, channelsLast);
    }
    return {gradInput, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor reluAvgPool2x2(const torch::Tensor& input) {
  const bool fusable =
      fusedFor(input) && input.dim() == 4 && input.size(2) >= 2 && input.size(3) >= 2;
  // A tensor of one channel (or one pixel) is contiguous in both layouts: NCHW is taken then.
  if (fusable && input.is_contiguous()) return ReluAvgPool2x2Function::apply(input, false);
  if (fusable && input.is_contiguous(torch::MemoryFormat::ChannelsLast)) {
    return ReluAvgPool2x2Function::apply(input, true);
  }
  return torch::nn::functional::avg_pool2d(torch::relu(input),
                                           torch::nn::functional::AvgPool2dFuncOptions(2));
}

}  // namespace ensemble
