// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/TapProductConv.h"

#include <torch/torch.h>

namespace ensemble {
namespace {

/// Above this many values per window the convolution has real arithmetic to do, and cuDNN's
/// kernels are the better choice.
constexpr int64_t kMostTaps = 27;

}  // namespace

bool convolvesByTaps(const torch::Tensor& images, const torch::Tensor& weight) {
  return images.is_cuda() && images.dim() == 4 && weight.dim() == 4 && weight.size(2) == weight.size(3) &&
         weight.size(2) % 2 == 1 && images.size(1) == weight.size(1) &&
         weight.size(1) * weight.size(2) * weight.size(3) <= kMostTaps;
}

torch::Tensor convolveByTaps(const torch::Tensor& images, const torch::Tensor& weight, const torch::Tensor& bias,
                             bool channelsLast) {
  namespace F = torch::nn::functional;
  const int64_t count = images.size(0), height = images.size(2), width = images.size(3);
  const int64_t filters = weight.size(0), kernel = weight.size(2);
  const int64_t pixels = height * width;
  // [count, taps, pixels]: each pixel's window, zero outside the image.
  torch::Tensor columns = F::unfold(images, F::UnfoldFuncOptions({kernel, kernel}).padding((kernel - 1) / 2));
  torch::Tensor filterRows = weight.reshape({filters, -1});  // [filters, taps]
  if (bias.defined()) {  // the bias as one more tap whose value is always 1
    columns = torch::cat({columns, torch::ones({count, 1, pixels}, columns.options())}, 1);
    filterRows = torch::cat({filterRows, bias.reshape({filters, 1})}, 1);
  }
  const int64_t taps = columns.size(1);
  if (channelsLast) {  // [count * pixels, taps] x [taps, filters]: each pixel's filters side by side
    const torch::Tensor rows = columns.transpose(1, 2).reshape({count * pixels, taps});
    return torch::mm(rows, filterRows.t()).view({count, height, width, filters}).permute({0, 3, 1, 2});
  }
  // [filters, taps] x [taps, pixels] for each image: each filter's plane in turn (NCHW). The
  // filters are the same for every image (a stride-0 batch, not a copy).
  return torch::bmm(filterRows.unsqueeze(0).expand({count, filters, taps}), columns)
      .view({count, filters, height, width});
}

}  // namespace ensemble
