// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/GroupedConv.h"

#if ENSEMBLELAB_WITH_CUDA_KERNELS
#include "core/models/FusedLayersCuda.h"
#endif

#include <torch/torch.h>

#include <cstdlib>
#include <optional>

#include "core/common/AutocastState.h"
#include "core/common/Environment.h"
#include "core/models/Bf16OnFloatKernels.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

#if ENSEMBLELAB_WITH_CUDA_KERNELS
/// ENSEMBLELAB_STACKED_CONV, read once: a run's convolutions all take the same kernels.
GroupedConvKernels kernelsAsked() {
  static const GroupedConvKernels asked = groupedConvKernelsAsked();
  return asked;
}

/// Our kernels forward and back, in `arithmetic`. The input's gradient is the forward kernel on
/// the output's gradient; the bias's is LibTorch's sum (as conv2d's backward computes it). In
/// bf16 the operands are cast here, as autocast would cast them for conv2d, and the weight's
/// gradient comes back in float, summed in float.
class GroupedConv3x3Function final : public torch::autograd::Function<GroupedConv3x3Function> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input, const torch::Tensor& weight,
                               const torch::Tensor& bias, int64_t groups, int64_t arithmetic) {
    const torch::ScalarType type = operandType(arithmetic);
    const torch::Tensor in = input.to(type).contiguous(), filters = weight.to(type).contiguous();
    torch::Tensor out = torch::empty({in.size(0), filters.size(0), in.size(2), in.size(3)}, in.options());
    if (out.numel() > 0) {
      const auto how = GroupedConvArithmetic(arithmetic);
      groupedConvForwardOnCuda(in, filters, bias.contiguous(), out, groups, how, onMmaSync(how));
    }
    context->save_for_backward({in, filters});
    context->saved_data["groups"] = groups;
    context->saved_data["arithmetic"] = arithmetic;
    context->saved_data["input type"] = input.scalar_type();
    return out;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor &in = saved[0], &filters = saved[1];
    const int64_t groups = context->saved_data["groups"].toInt();
    const auto arithmetic = GroupedConvArithmetic(context->saved_data["arithmetic"].toInt());
    const torch::ScalarType inputType = context->saved_data["input type"].toScalarType();
    const torch::Tensor gradOut = gradOutputs.front().to(in.scalar_type()).contiguous();
    const auto floatOptions = filters.options().dtype(torch::kFloat32);
    if (in.numel() == 0 || gradOut.numel() == 0) {
      return {torch::zeros(in.sizes(), in.options().dtype(inputType)), torch::zeros(filters.sizes(), floatOptions),
              torch::zeros({filters.size(0)}, floatOptions), torch::Tensor(), torch::Tensor()};
    }
    torch::Tensor gradInput = torch::empty_like(in), gradWeight = torch::empty(filters.sizes(), floatOptions);
    groupedConvForwardOnCuda(gradOut, groupedConvInputGradientWeight(filters, groups), torch::Tensor(), gradInput,
                             groups, arithmetic, onMmaSync(arithmetic));
    groupedConvWeightGradientOnCuda(in, gradOut, gradWeight, groups, arithmetic, onMmaSync(arithmetic));
    return {gradInput.to(inputType), gradWeight, gradOut.sum({0, 2, 3}, false, torch::kFloat32), torch::Tensor(),
            torch::Tensor()};
  }

 private:
  static bool onMmaSync(GroupedConvArithmetic arithmetic) {
    return groupedConvOnMmaSync(arithmetic, kernelsAsked());
  }
  static torch::ScalarType operandType(int64_t arithmetic) {
    return GroupedConvArithmetic(arithmetic) == GroupedConvArithmetic::BFloat16 ? torch::kBFloat16 : torch::kFloat32;
  }
};

/// How our kernels would multiply these operands, if they can: bf16 autocast gives bf16
/// operands, TF32 allowed for cuDNN (--precision tf32) gives TF32, otherwise fp32.
std::optional<GroupedConvArithmetic> ourArithmeticFor(const torch::Tensor& input, const torch::Tensor& weight,
                                                      const torch::Tensor& bias, int64_t groups) {
  const auto onInputsGpu = [&](const torch::Tensor& t) {
    return t.defined() && t.is_cuda() && t.device() == input.device();
  };
  const bool shapes = input.dim() == 4 && weight.dim() == 4 && weight.size(2) == 3 && weight.size(3) == 3 &&
                      groups >= 1 && groups <= 65535 && input.size(1) == groups * weight.size(1) &&
                      weight.size(0) % groups == 0 && bias.dim() == 1 && bias.size(0) == weight.size(0);
  if (!onInputsGpu(input) || !onInputsGpu(weight) || !onInputsGpu(bias) || !shapes || !input.is_contiguous() ||
      weight.scalar_type() != torch::kFloat32 || bias.scalar_type() != torch::kFloat32) {
    return std::nullopt;
  }
  std::optional<GroupedConvArithmetic> arithmetic;
  if (autocastEnabled(true)) {
    if (autocastDtype(true) == torch::kBFloat16 &&
        (input.scalar_type() == torch::kBFloat16 || input.scalar_type() == torch::kFloat32)) {
      arithmetic = GroupedConvArithmetic::BFloat16;
    }
  } else if (input.scalar_type() == torch::kFloat32) {
    arithmetic = at::globalContext().allowTF32CuDNN() ? GroupedConvArithmetic::TensorFloat32
                                                      : GroupedConvArithmetic::Float32;
  }
  if (arithmetic && ourGroupedConvChosenFor(*arithmetic, kernelsAsked())) return arithmetic;
  return std::nullopt;
}
#endif

}  // namespace

GroupedConvKernels groupedConvKernelsAsked() {
  const std::string asked = environment::oneOf(environment::kStackedConv, {"ours", "ours-mma-sync", "cudnn"},
                                               "whose kernels run the stacked members' grouped convolution on a GPU");
  if (asked == "ours") return GroupedConvKernels::Ours;
  if (asked == "ours-mma-sync") return GroupedConvKernels::OursOnMmaSync;
  return asked == "cudnn" ? GroupedConvKernels::Cudnn : GroupedConvKernels::Measured;
}

GroupedConvKernels askForOurGroupedConvKernels() {
  if (groupedConvKernelsAsked() == GroupedConvKernels::OursOnMmaSync) return GroupedConvKernels::OursOnMmaSync;
  ::setenv(environment::kStackedConv, "ours", 1);
  return GroupedConvKernels::Ours;
}

bool ourGroupedConvChosenFor(GroupedConvArithmetic arithmetic, GroupedConvKernels asked) {
  switch (asked) {
    case GroupedConvKernels::Ours:
    case GroupedConvKernels::OursOnMmaSync: return true;
    case GroupedConvKernels::Cudnn: return false;
    case GroupedConvKernels::Measured: return arithmetic == GroupedConvArithmetic::Float32;
  }
  return false;
}

bool groupedConvOnMmaSync(GroupedConvArithmetic arithmetic, GroupedConvKernels asked) {
  switch (asked) {
    case GroupedConvKernels::OursOnMmaSync: return arithmetic != GroupedConvArithmetic::BFloat16;
    case GroupedConvKernels::Measured: return arithmetic == GroupedConvArithmetic::Float32;
    case GroupedConvKernels::Ours:
    case GroupedConvKernels::Cudnn: return false;
  }
  return false;
}

bool groupedConvRunsOurKernels(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                               int64_t groups) {
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  return ourArithmeticFor(input, weight, bias, groups).has_value();
#else
  (void)input, (void)weight, (void)bias, (void)groups;
  return false;
#endif
}

torch::Tensor groupedConv3x3(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                             int64_t groups) {
  if (bf16AutocastOnCpu(input)) {
    const auto convolve = [groups](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
      return groupedConv3x3(x, w, b, groups);
    };
    return asBf16OnFloatKernels(convolve, input, weight, bias);
  }
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  if (const auto arithmetic = ourArithmeticFor(input, weight, bias, groups)) {
    return GroupedConv3x3Function::apply(input, weight, bias, groups, int64_t(*arithmetic));
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
