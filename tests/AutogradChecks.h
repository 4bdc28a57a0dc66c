// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Checks shared by the tests of our own autograd functions (TestModels, TestWinogradConv):
// whether a function is in a result's graph, and whether a computation gives the same bits on
// any LibTorch thread count or with either width of our CPU loops' registers. Kept out of
// TestSupport.h, which every test includes.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/common/Environment.h"

namespace testing {

/// Whether a node whose name contains `name` is in the autograd graph that produced `output`.
inline bool graphHas(const torch::Tensor& output, const std::string& name) {
  std::vector<torch::autograd::Node*> pending{output.grad_fn().get()};
  while (!pending.empty()) {
    torch::autograd::Node* node = pending.back();
    pending.pop_back();
    if (!node) continue;  // a tensor without a graph
    if (node->name().find(name) != std::string::npos) return true;
    for (const auto& edge : node->next_edges()) {
      if (edge.function) pending.push_back(edge.function.get());
    }
  }
  return false;
}

/// layer(x, weight, bias) with x a copy of `input`, a weight of `weightShape` and a bias (one
/// per output) drawn after torch::manual_seed(seed), then backward from `gradOutput`: the
/// output and the gradients of x, the weight and the bias.
template <typename Layer>
std::vector<torch::Tensor> layerAndGradients(const Layer& layer, const torch::Tensor& input,
                                             const std::vector<int64_t>& weightShape, const torch::Tensor& gradOutput,
                                             std::uint64_t seed) {
  torch::manual_seed(seed);
  const torch::Tensor x = input.clone().requires_grad_(true);
  const torch::Tensor weight = torch::randn(weightShape).requires_grad_(true);
  const torch::Tensor bias = torch::randn({weightShape.front()}).requires_grad_(true);
  const torch::Tensor output = layer(x, weight, bias);
  output.backward(gradOutput);
  return {output.detach(), x.grad(), weight.grad(), bias.grad()};
}

/// Runs `work` (it returns the tensors it computed) on 1, 2 and 3 LibTorch threads, then puts
/// the thread count back: whether every run gave every tensor bit for bit as the first run.
template <typename Work>
bool sameOnAnyThreadCount(const Work& work) {
  const int previousThreads = at::get_num_threads();
  std::vector<std::vector<torch::Tensor>> results;
  for (int threads : {1, 2, 3}) {
    at::set_num_threads(threads);
    results.push_back(work());
  }
  at::set_num_threads(previousThreads);
  for (std::size_t run = 1; run < results.size(); ++run) {
    if (results[run].size() != results[0].size()) return false;
    for (std::size_t i = 0; i < results[0].size(); ++i) {
      if (!torch::equal(results[run][i], results[0][i])) return false;
    }
  }
  return true;
}

/// Runs `work` with the CPU loops' products at 16 floats a register (where the CPU has
/// AVX-512) and then at 8 (core/models/PanelWidth.h): {wide, narrow}.
template <typename Work>
std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>> atEitherPanelWidth(const Work& work) {
  const char* variable = ensemble::environment::kCpuVectorFloats;
  ::unsetenv(variable);
  std::vector<torch::Tensor> wide = work();
  ::setenv(variable, "8", 1);
  std::vector<torch::Tensor> narrow = work();
  ::unsetenv(variable);
  return {std::move(wide), std::move(narrow)};
}

}  // namespace testing
