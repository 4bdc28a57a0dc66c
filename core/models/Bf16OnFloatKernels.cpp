// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/Bf16OnFloatKernels.h"

#include <torch/nn/functional/conv.h>
#include <torch/nn/functional/linear.h>


namespace ensemble {

bool bf16AutocastOnCpu(const torch::Tensor& input) {
  return input.defined() && input.is_cpu() && autocastEnabled(false) && autocastDtype(false) == torch::kBFloat16;
}

torch::Tensor roundedToBf16(const torch::Tensor& t) {
  if (!t.defined()) return t;
  return t.to(torch::kBFloat16).to(torch::kFloat32);
}

torch::Tensor applied(torch::nn::Conv2dImpl& conv, const torch::Tensor& x) {
  const auto& options = conv.options;
  // Padding other than zeros is the module's own (F::conv2d pads with zeros only).
  if (!bf16AutocastOnCpu(x) || torch::enumtype::get_enum_name(options.padding_mode()) != "kZeros") {
    return conv.forward(x);
  }
  namespace F = torch::nn::functional;
  const auto convolve = [&](const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias) {
    return F::conv2d(in, weight, F::Conv2dFuncOptions().bias(bias).stride(options.stride()).padding(options.padding())
                                     .dilation(options.dilation()).groups(options.groups()));
  };
  return asBf16OnFloatKernels(convolve, x, conv.weight, conv.bias);
}

torch::Tensor applied(torch::nn::LinearImpl& linear, const torch::Tensor& x) {
  if (!bf16AutocastOnCpu(x)) return linear.forward(x);
  const auto multiply = [](const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias) {
    return torch::linear(in, weight, bias);
  };
  return asBf16OnFloatKernels(multiply, x, linear.weight, linear.bias);
}

}  // namespace ensemble
