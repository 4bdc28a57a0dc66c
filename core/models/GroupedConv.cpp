// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/GroupedConv.h"

#if ENSEMBLELAB_WITH_CUDA_KERNELS
#include "core/models/FusedLayersCuda.h"
#endif

#include <torch/torch.h>

#include "core/common/AutocastState.h"
#include "core/common/Environment.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

#if ENSEMBLELAB_WITH_CUDA_KERNELS
/// Our kernels forward and back. The input's gradient is the forward kernel on the output's
/// gradient; the bias's is LibTorch's sum (as conv2d's backward computes it).
class GroupedConv3x3Function final : public torch::autograd::Function<GroupedConv3x3Function> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input, const torch::Tensor& weight,
                               const torch::Tensor& bias, int64_t groups) {
    const torch::Tensor in = input.contiguous(), filters = weight.contiguous();
    torch::Tensor out = torch::empty({in.size(0), filters.size(0), in.size(2), in.size(3)}, in.options());
    if (out.numel() > 0) groupedConvForwardOnCuda(in, filters, bias.contiguous(), out, groups);
    context->save_for_backward({in, filters});
    context->saved_data["groups"] = groups;
    return out;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor &in = saved[0], &filters = saved[1];
    const int64_t groups = context->saved_data["groups"].toInt();
    const torch::Tensor gradOut = gradOutputs.front().contiguous();
    if (in.numel() == 0 || gradOut.numel() == 0) {
      return {torch::zeros_like(in), torch::zeros_like(filters), torch::zeros({filters.size(0)}, filters.options()),
              torch::Tensor()};
    }
    torch::Tensor gradInput = torch::empty_like(in), gradWeight = torch::empty_like(filters);
    groupedConvForwardOnCuda(gradOut, groupedConvInputGradientWeight(filters, groups), torch::Tensor(), gradInput,
                             groups);
    groupedConvWeightGradientOnCuda(in, gradOut, gradWeight, groups);
    return {gradInput, gradWeight, gradOut.sum({0, 2, 3}), torch::Tensor()};
  }
};

bool ourKernelsAsked() {
  static const bool asked = environment::isSetTo(environment::kStackedConv, "ours",
                                                 "our own grouped convolution kernels for stacked members on a GPU");
  return asked;
}
#endif

}  // namespace

bool groupedConvRunsOurKernels(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                               int64_t groups) {
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  const auto isCudaFloat = [&](const torch::Tensor& t) {
    return t.defined() && t.is_cuda() && t.device() == input.device() && t.scalar_type() == torch::kFloat32;
  };
  return isCudaFloat(input) && isCudaFloat(weight) && isCudaFloat(bias) && input.dim() == 4 && weight.dim() == 4 &&
         weight.size(2) == 3 && weight.size(3) == 3 && groups >= 1 && groups <= 65535 &&
         input.size(1) == groups * weight.size(1) && weight.size(0) % groups == 0 && bias.dim() == 1 &&
         bias.size(0) == weight.size(0) && input.is_contiguous() && !autocastEnabled(true) && ourKernelsAsked();
#else
  (void)input, (void)weight, (void)bias, (void)groups;
  return false;
#endif
}

torch::Tensor groupedConv3x3(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                             int64_t groups) {
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  if (groupedConvRunsOurKernels(input, weight, bias, groups)) {
    return GroupedConv3x3Function::apply(input, weight, bias, groups);
  }
#endif
  namespace F = torch::nn::functional;
  return F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1).groups(groups));
}

torch::Tensor groupedConvInputGradientWeight(const torch::Tensor& weight, int64_t groups) {
  const int64_t out = weight.size(0) / groups, in = weight.size(1);
  return weight.reshape({groups, out, in, 3, 3})
      .transpose(1, 2)
      .flip({3, 4})
      .reshape({groups * in, out, 3, 3})
      .contiguous();
}

}  // namespace ensemble
