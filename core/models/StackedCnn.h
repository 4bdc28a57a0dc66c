// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Several CNN members on one device trained as one network: each parameter of the members
// stacked along a new first dimension, the first convolution widened to every member's
// filters, the second a grouped convolution (one group per member), the dense layers
// batched matmuls. The members' own parameters become views of their slice of the
// stacks, so evaluation, checkpoints and resume keep working on the members unchanged
// while a training step runs as a few large operations instead of many small ones.
// The gradient of the summed member losses is each member's own, so training matches
// separate members up to the rounding of the reordered sums (tests/TestStackedCnn).
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <memory>
#include <string>
#include <vector>

namespace ensemble {

class ClassifierImpl;

class StackedCnnImpl final : public torch::nn::Module {
 public:
  /// Takes over the parameters of `members` (CNNs of one shape, on one device).
  explicit StackedCnnImpl(const std::vector<std::shared_ptr<ClassifierImpl>>& members);

  /// Logits [members, batch, classes] for one batch every member sees.
  torch::Tensor forward(const torch::Tensor& images);

  int64_t members() const { return m_members; }

 private:
  int64_t m_members;
  std::vector<torch::Tensor> m_stacks;  ///< in the members' parameter order
};
TORCH_MODULE(StackedCnn);

/// The members' parameters stacked once, as copies (the members keep their own), so that they
/// can be evaluated as one network: logits [members, batch, classes], StackedCnn's forward.
/// Evaluation of members that share a device (core/train/Evaluator.cpp) builds one per pass:
/// a StackedCnn would take the parameters over from a training step's own stacks.
class StackedCnnSnapshot {
 public:
  explicit StackedCnnSnapshot(const std::vector<std::shared_ptr<ClassifierImpl>>& members);
  torch::Tensor forward(const torch::Tensor& images) const;

 private:
  int64_t m_members;
  std::vector<torch::Tensor> m_stacks;
};

/// Whether `model` is a network StackedCnn can stack.
bool canStack(const std::string& model);

}  // namespace ensemble
