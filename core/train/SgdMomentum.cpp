// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/SgdMomentum.h"

#include <torch/torch.h>

namespace ensemble {

SgdMomentum::SgdMomentum(std::vector<torch::Tensor> parameters, double learningRate,
                         double momentum)
    : m_parameters(std::move(parameters)), m_learningRate(learningRate), m_momentum(momentum) {
  m_buffers.reserve(m_parameters.size());
  for (const auto& p : m_parameters) m_buffers.push_back(torch::zeros_like(p).detach());
}

void SgdMomentum::zeroGrad() {
  for (auto& p : m_parameters) {
    if (p.grad().defined()) p.mutable_grad().zero_();
  }
}

void SgdMomentum::step() {
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < m_parameters.size(); ++i) {
    const torch::Tensor& grad = m_parameters[i].grad();
    if (!grad.defined()) continue;
    m_buffers[i].mul_(m_momentum).add_(grad);
    m_parameters[i].add_(m_buffers[i], -m_learningRate);
  }
}

void SgdMomentum::shareStackedBuffers(SgdMomentum& stacked, const std::vector<SgdMomentum*>& members) {
  torch::NoGradGuard noGrad;
  for (std::size_t i = 0; i < stacked.m_buffers.size(); ++i) {
    torch::Tensor& slices = stacked.m_buffers[i];
    for (std::size_t m = 0; m < members.size(); ++m) slices.select(0, int64_t(m)).copy_(members[m]->m_buffers[i]);
    for (std::size_t m = 0; m < members.size(); ++m) members[m]->m_buffers[i] = slices.select(0, int64_t(m));
  }
}

}  // namespace ensemble
