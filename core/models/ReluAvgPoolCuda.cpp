// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ReluAvgPoolCuda.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#include <torch/torch.h>

#include "core/models/ReluAvgPoolKernels.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

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

torch::MemoryFormat layoutOf(bool channelsLast) {
  return channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

void check(int error, const char* what) {
  TORCH_CHECK(error == 0, "the fused ReLU + average pool's ", what, " kernel failed to launch: ",
              cudaGetErrorString(cudaError_t(error)));
}

class ReluAvgPool2x2Cuda final : public torch::autograd::Function<ReluAvgPool2x2Cuda> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input, bool channelsLast) {
    const c10::cuda::CUDAGuard onDevice(input.device());
    torch::Tensor output = torch::empty({input.size(0), input.size(1), input.size(2) / 2, input.size(3) / 2},
                                       input.options().memory_format(layoutOf(channelsLast)));
    check(kernels::launchReluAvgPoolForward(input.data_ptr(), output.data_ptr(), shapeOf(input, channelsLast),
                                            elementOf(input), at::cuda::getCurrentCUDAStream().stream()),
          "forward");
    context->save_for_backward({input});
    context->saved_data["channels_last"] = channelsLast;
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const torch::Tensor input = context->get_saved_variables().front();
    const bool channelsLast = context->saved_data["channels_last"].toBool();
    const c10::cuda::CUDAGuard onDevice(input.device());
    // The pooled gradient comes in either layout (flatten's backward gives NCHW).
    const torch::Tensor gradOutput = gradOutputs.front().to(input.scalar_type()).contiguous(layoutOf(channelsLast));
    torch::Tensor gradInput = torch::empty(input.sizes(), input.options().memory_format(layoutOf(channelsLast)));
    check(kernels::launchReluAvgPoolBackward(input.data_ptr(), gradOutput.data_ptr(), gradInput.data_ptr(),
                                             shapeOf(input, channelsLast), elementOf(input),
                                             at::cuda::getCurrentCUDAStream().stream()),
          "backward");
    return {gradInput, torch::Tensor()};
  }
};

bool channelsLastOnly(const torch::Tensor& input) {
  // A tensor of one channel (or one pixel) is contiguous in both layouts: NCHW is taken then.
  return !input.is_contiguous() && input.is_contiguous(torch::MemoryFormat::ChannelsLast);
}

}  // namespace

bool fusesOnCuda(const torch::Tensor& input) {
  const auto type = input.scalar_type();
  return input.is_cuda() && input.dim() == 4 && input.size(2) >= 2 && input.size(3) >= 2 &&
         (type == torch::kFloat32 || type == torch::kBFloat16 || type == torch::kFloat16) &&
         (input.is_contiguous() || input.is_contiguous(torch::MemoryFormat::ChannelsLast));
}

torch::Tensor reluAvgPool2x2Cuda(const torch::Tensor& input) {
  return ReluAvgPool2x2Cuda::apply(input, channelsLastOnly(input));
}

}  // namespace ensemble
