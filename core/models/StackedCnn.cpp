// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/StackedCnn.h"

#include <torch/torch.h>

#include <algorithm>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/models/Bf16OnFloatKernels.h"
#include "core/models/ChannelsLastWeight.h"
#include "core/models/Classifier.h"
#include "core/models/ConvReluPool.h"
#include "core/models/GroupedConv.h"
#include "core/models/ReluAvgPool.h"

namespace ensemble {
namespace {

// The CNN's parameters in registration order (core/models/Cnn.cpp).
enum Parameter { kConv1Weight, kConv1Bias, kConv2Weight, kConv2Bias, kDense1Weight, kDense1Bias,
                 kDense2Weight, kDense2Bias, kParameterCount };

/// Whether the stacked CNN convolves channels-last: on a GPU where ENSEMBLELAB_STACKED_LAYOUT
/// asks (an experiment; cuDNN's grouped NCHW kernels are the default).
bool stacksChannelsLast(const torch::Tensor& images) {
  if (!images.is_cuda()) return false;
  static const bool channelsLast = environment::isSetTo(
      environment::kStackedLayout, "channels-last", "the stacked CNN's activations and filters channels-last on a GPU");
  return channelsLast;
}

/// bias + x weight^T for every member at once: x [M, B, in], weight [M, out, in], bias [M, out].
torch::Tensor stackedDense(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  const auto dense = [](const torch::Tensor& in, const torch::Tensor& w, const torch::Tensor& b) {
    return torch::baddbmm(b.unsqueeze(1), in, w.transpose(1, 2));
  };
  return bf16AutocastOnCpu(x) ? asBf16OnFloatKernels(dense, x, weight, bias) : dense(x, weight, bias);
}

/// The CNN (core/models/Cnn.cpp) for `members` members at once, from their stacked parameters.
torch::Tensor stackedForward(const std::vector<torch::Tensor>& stacks, int64_t members, const torch::Tensor& images) {
  const bool channelsLast = stacksChannelsLast(images);
  const auto flatFilters = [&](const torch::Tensor& stack) {  // [M, out, in, k, k] -> [M*out, in, k, k]
    return channelsLast ? channelsLastCopy(stack.flatten(0, 1)) : stack.flatten(0, 1);
  };
  // Every member sees the same images: one convolution with all members' filters.
  torch::Tensor x = convReluAvgPool2x2(images, flatFilters(stacks[kConv1Weight]), stacks[kConv1Bias].flatten());
  // Member m's channels feed only member m's filters: one group each.
  x = groupedConv3x3(x, flatFilters(stacks[kConv2Weight]), stacks[kConv2Bias].flatten(), members);
  x = reluAvgPool2x2(x);
  const int64_t batch = x.size(0);
  x = x.reshape({batch, members, -1}).transpose(0, 1);  // [M, B, features]
  x = torch::relu(stackedDense(x, stacks[kDense1Weight], stacks[kDense1Bias]));
  return stackedDense(x, stacks[kDense2Weight], stacks[kDense2Bias]);
}

void requireStackable(const std::vector<std::shared_ptr<ClassifierImpl>>& members) {
  if (members.empty()) throw ConfigError("stacking members needs at least one member");
  if (members.front()->parameters().size() != kParameterCount) throw ConfigError("only the cnn model's members can be stacked");
}

}  // namespace

bool canStack(const std::string& model) { return model == "cnn"; }

StackedCnnImpl::StackedCnnImpl(const std::vector<std::shared_ptr<ClassifierImpl>>& members)
    : m_members(int64_t(members.size())) {
  requireStackable(members);
  const auto names = members.front()->named_parameters();
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::vector<torch::Tensor> slices;
    for (const auto& member : members) slices.push_back(member->parameters()[i]);
    std::string name = names[i].key();
    std::replace(name.begin(), name.end(), '.', '_');
    m_stacks.push_back(register_parameter(name, torch::stack(slices)));
    for (std::size_t m = 0; m < members.size(); ++m) {
      members[m]->parameters()[i].set_data(m_stacks.back().select(0, int64_t(m)));
    }
  }
}

torch::Tensor StackedCnnImpl::forward(const torch::Tensor& images) { return stackedForward(m_stacks, m_members, images); }

StackedCnnSnapshot::StackedCnnSnapshot(const std::vector<std::shared_ptr<ClassifierImpl>>& members)
    : m_members(int64_t(members.size())) {
  requireStackable(members);
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < kParameterCount; ++i) {
    std::vector<torch::Tensor> slices;
    for (const auto& member : members) slices.push_back(member->parameters()[i].detach());
    m_stacks.push_back(torch::stack(slices));
  }
}

torch::Tensor StackedCnnSnapshot::forward(const torch::Tensor& images) const {
  return stackedForward(m_stacks, m_members, images);
}

}  // namespace ensemble
