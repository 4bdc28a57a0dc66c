// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sum of per-chunk partial gradients ([chunks][...]) one chunk after another, in order: a
// reduction whose order no thread count changes, so the fused layers' gradients are the same on
// any number of threads (ConvReluPool.cpp, WinogradConv.cpp).
#include <torch/types.h>

namespace ensemble {

inline torch::Tensor sumChunksInOrder(const torch::Tensor& chunks) {
  torch::Tensor sum = chunks[0].clone();
  for (int64_t chunk = 1; chunk < chunks.size(0); ++chunk) sum.add_(chunks[chunk]);
  return sum;
}

}  // namespace ensemble
