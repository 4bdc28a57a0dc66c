// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ReluAvgPoolCuda.h"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#include <torch/torch.h>

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

void check(int error, const char* what) {
  TORCH_CHECK(error == 0, "the fused ReLU + average pool's ", what, " kernel failed to launch: ",
              cudaGetErrorString(cudaError_t(error)));
}

}  // namespace

void forwardOnCuda(const torch::Tensor& input, torch::Tensor& output, bool channelsLast) {
  const c10::cuda::CUDAGuard onDevice(input.device());
  check(kernels::launchReluAvgPoolForward(input.data_ptr(), output.data_ptr(), shapeOf(input, channelsLast),
                                          elementOf(input), at::cuda::getCurrentCUDAStream().stream()),
        "forward");
}

void backwardOnCuda(const torch::Tensor& input, const torch::Tensor& gradOutput, torch::Tensor& gradInput,
                    bool channelsLast) {
  const c10::cuda::CUDAGuard onDevice(input.device());
  check(kernels::launchReluAvgPoolBackward(input.data_ptr(), gradOutput.data_ptr(), gradInput.data_ptr(),
                                           shapeOf(input, channelsLast), elementOf(input),
                                           at::cuda::getCurrentCUDAStream().stream()),
        "backward");
}

}  // namespace ensemble
