// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// SGD with heavy-ball momentum and L2 weight decay, PyTorch's rule (dampening 0, no Nesterov),
// optax's sgd after add_decayed_weights:
//   grad += weightDecay * param;  buffer = momentum * buffer + grad;  param -= lr * buffer
// Ours rather than torch::optim::SGD so the momentum buffers are plain named tensors that
// a checkpoint saves and restores exactly. Buffers start at zero, which gives the same
// first step as PyTorch's "buffer = grad". On the CPU each product and sum is rounded on its
// own (SgdMomentumLoop.h); LibTorch's CPU kernels fuse the parameter's multiply-add in their
// vector bodies, so torch::optim::SGD can differ from us in the last bit of a parameter.
#include <torch/types.h>

#include <vector>

namespace ensemble {

class SgdMomentum final {
 public:
  /// `weightDecay` is torch.optim.SGD's weight_decay: 0 (the default) leaves the gradient as
  /// it is, exactly (not "plus 0 times the weight", which would turn an infinite weight's
  /// update into NaN and a gradient's -0 into +0).
  SgdMomentum(std::vector<torch::Tensor> parameters, double learningRate, double momentum, double weightDecay = 0.0);

  /// Drops every gradient (set to none), so the next backward hands its gradients over.
  void clearGradients();
  void step();

  /// The rate of the next steps (a schedule's, core/config/LearningRateSchedule.h). From the
  /// first call on, the multi-tensor update (a GPU's) reads the rate from one tensor on the
  /// parameters' device, which each call writes in place (on the current stream, with no host
  /// wait): a step captured in a CUDA graph (CudaGraphStep.h) then follows the schedule at
  /// each replay, where a rate passed to the kernels as a number would be captured with them.
  void setLearningRate(double learningRate);
  double learningRate() const { return m_learningRate; }

  /// One buffer per parameter, in parameter order.
  std::vector<torch::Tensor>& momentumBuffers() { return m_buffers; }
  const std::vector<torch::Tensor>& momentumBuffers() const { return m_buffers; }

  /// For members trained as one stacked network (StackedCnn): copies each member's buffers
  /// into its slice of `stacked`'s, then points the member's buffers at those slices, so a
  /// checkpoint of a member saves (and a resume restores) what the stacked step uses.
  static void shareStackedBuffers(SgdMomentum& stacked, const std::vector<SgdMomentum*>& members);

 private:
  std::vector<torch::Tensor> m_parameters;
  std::vector<torch::Tensor> m_buffers;
  double m_learningRate;
  torch::Tensor m_negativeRate;  ///< -m_learningRate on the parameters' device, once a rate was set
  double m_momentum;
  double m_weightDecay;
};

}  // namespace ensemble
