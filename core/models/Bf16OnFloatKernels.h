// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// bf16 autocast on the CPU, computed on our float32 kernels. Autocast casts a convolution's or
// a dense layer's operands to bfloat16 and LibTorch then multiplies them in its own bf16
// loops: on a CPU without bf16 instructions (AVX2, Debian's LibTorch 1.13 and the wheel alike)
// slow_conv2d's, 31x slower than our float kernels for the CNN (541 against 16,671 member-
// images/s, 2 members on a 2-core AMD EPYC, `ensemble-lab-cli train --dataset synthetic
// --mode ensemble --devices cpu*2 --precision bf16`). The numbers are what bf16 means there:
// each operand rounded to bfloat16, the products (exact in float) summed in float, the output
// rounded to bfloat16 and handed on as a bfloat16 tensor, as autocast's conv2d and linear
// would; the gradients that flow back through the roundings are rounded to bfloat16 too.
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include "core/common/AutocastState.h"

namespace ensemble {

/// Whether `input`, a CPU tensor, meets bf16 autocast on the calling thread.
bool bf16AutocastOnCpu(const torch::Tensor& input);

/// `t` rounded to bfloat16 and held as float32 (autograd rounds its gradient the same way);
/// an undefined tensor stays undefined.
torch::Tensor roundedToBf16(const torch::Tensor& t);

/// layer(input, weight, bias) as bf16 autocast defines it, on float kernels: the operands
/// rounded to bfloat16, autocast paused (so `layer` takes its float32 path), the output
/// rounded to a bfloat16 tensor.
template <typename Layer>
torch::Tensor asBf16OnFloatKernels(const Layer& layer, const torch::Tensor& input, const torch::Tensor& weight,
                                   const torch::Tensor& bias) {
  const CpuAutocastPaused paused;
  return layer(roundedToBf16(input), roundedToBf16(weight), roundedToBf16(bias)).to(torch::kBFloat16);
}

/// conv(x) and linear(x), on float kernels under bf16 autocast on the CPU (LeNet, ResNet-18).
torch::Tensor applied(torch::nn::Conv2dImpl& conv, const torch::Tensor& x);
torch::Tensor applied(torch::nn::LinearImpl& linear, const torch::Tensor& x);

}  // namespace ensemble
