// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/MemberProductsConv.h"

#include <torch/torch.h>

#include <cstring>

#include "core/common/AutocastState.h"
#include "core/common/Environment.h"

namespace ensemble {
namespace {

namespace F = torch::nn::functional;

bool productsChosen() {
  const char* choice = environment::read(environment::kStackedConv);
  return choice && std::strcmp(choice, "products") == 0;
}

}  // namespace

bool memberProductsConvolve(const torch::Tensor& input, const torch::Tensor& weight) {
  return productsChosen() && input.is_cuda() && input.scalar_type() == torch::kFloat32 &&
         weight.scalar_type() == torch::kFloat32 && !autocastEnabled(true) && weight.size(2) == 3 &&
         weight.size(3) == 3;
}

torch::Tensor stackedConvolution3x3(const torch::Tensor& input, const torch::Tensor& weight,
                                    const torch::Tensor& bias, int64_t members) {
  if (!memberProductsConvolve(input, weight)) {
    return F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1).groups(members));
  }
  const int64_t batch = input.size(0), height = input.size(2), width = input.size(3);
  const int64_t outChannels = weight.size(0) / members, patch = weight.size(1) * 9;
  const int64_t pairs = batch * members;
  // [batch, members * in * 9, pixels]: member m's rows are contiguous, so every (image, member)
  // pair's patch matrix [in * 9, pixels] is a view.
  const torch::Tensor patches =
      F::unfold(input.contiguous(), F::UnfoldFuncOptions({3, 3}).padding(1)).view({pairs, patch, height * width});
  // cuBLAS takes one stride between the matrices of a batch: the filters are repeated per image
  // (their gradient is summed back over the images by the expand's backward).
  const torch::Tensor filters = weight.reshape({1, members, outChannels, patch})
                                    .expand({batch, members, outChannels, patch})
                                    .reshape({pairs, outChannels, patch});
  const torch::Tensor biases =
      bias.reshape({1, members, outChannels, 1}).expand({batch, members, outChannels, 1}).reshape({pairs, outChannels, 1});
  return torch::baddbmm(biases, filters, patches).view({batch, members * outChannels, height, width});
}

}  // namespace ensemble
