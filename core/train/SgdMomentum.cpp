// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/SgdMomentum.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "core/train/SgdMomentumLoop.h"

namespace ensemble {

SgdMomentum::SgdMomentum(std::vector<torch::Tensor> parameters, double learningRate, double momentum,
                         double weightDecay)
    : m_parameters(std::move(parameters)), m_learningRate(learningRate), m_momentum(momentum), m_weightDecay(weightDecay) {
  m_buffers.reserve(m_parameters.size());
  for (const auto& p : m_parameters) m_buffers.push_back(torch::zeros_like(p).detach());
}

// Set to none, as PyTorch's zero_grad() does by default: the next backward then hands its
// gradient tensor over instead of adding it to zeros, and nothing has to be zeroed.
void SgdMomentum::clearGradients() {
  for (auto& p : m_parameters) p.mutable_grad() = torch::Tensor();
}

void SgdMomentum::setLearningRate(double learningRate) {
  m_learningRate = learningRate;
  if (m_buffers.empty()) return;
  torch::NoGradGuard noGrad;
  // The buffers' type: the multi-tensor product below takes its fast path for a rate of theirs.
  if (!m_negativeRate.defined()) m_negativeRate = torch::empty({}, m_buffers.front().options());
  m_negativeRate.fill_(-learningRate);
}

namespace {

/// buffer * rate for each buffer, the rate read from its tensor when the kernels run.
std::vector<torch::Tensor> timesRate(const std::vector<torch::Tensor>& buffers, const torch::Tensor& rate) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  return torch::_foreach_mul(buffers, rate);
#else
  // LibTorch 1.13 (Debian's, CPU only) has no multi-tensor product with a tensor.
  std::vector<torch::Tensor> products;
  for (const torch::Tensor& buffer : buffers) products.push_back(buffer * rate);
  return products;
#endif
}

bool onePassOnTheCpu(const torch::Tensor& parameter, const torch::Tensor& buffer, const torch::Tensor& grad) {
  const auto cpuFloat = [](const torch::Tensor& t) {
    return t.is_cpu() && t.scalar_type() == torch::kFloat32 && t.is_contiguous();
  };
  return cpuFloat(parameter) && cpuFloat(buffer) && cpuFloat(grad);
}

}  // namespace

// On the CPU one pass per tensor (SgdMomentumLoop.h): three passes made the update about 4%
// of the ensemble's step. On a GPU three multi-tensor (foreach) kernels for all parameters,
// where a loop over the parameters launched three kernels per tensor: on an H100 the
// separate members' step was launch-bound (issue 29's profile: 2,360 element-wise adds in
// 20 steps).
void SgdMomentum::step() {
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> parameters, buffers, grads;
  const auto momentum = float(m_momentum), negativeLearningRate = float(-m_learningRate);
  const auto weightDecay = float(m_weightDecay);
  for (std::size_t i = 0; i < m_parameters.size(); ++i) {
    torch::Tensor& parameter = m_parameters[i];
    const torch::Tensor& grad = parameter.grad();
    if (!grad.defined()) continue;
    torch::Tensor& buffer = m_buffers[i];
    if (onePassOnTheCpu(parameter, buffer, grad)) {
      float* p = parameter.data_ptr<float>();
      float* b = buffer.data_ptr<float>();
      const float* g = grad.data_ptr<float>();
      at::parallel_for(0, parameter.numel(), at::internal::GRAIN_SIZE, [&](int64_t first, int64_t last) {
        if (weightDecay == 0.f) sgd_loop::step(first, last, p, b, g, momentum, negativeLearningRate);
        else sgd_loop::stepWithDecay(first, last, p, b, g, momentum, negativeLearningRate, weightDecay);
      });
      // Written through their pointers: tell autograd, as an in-place op would.
      parameter.unsafeGetTensorImpl()->bump_version();
      buffer.unsafeGetTensorImpl()->bump_version();
      continue;
    }
    parameters.push_back(parameter);
    buffers.push_back(buffer);
    grads.push_back(grad);
  }
  if (parameters.empty()) return;
  // PyTorch's order (torch.optim.SGD's foreach path): the decayed gradient first, out of
  // place, so autograd's gradients stay what backward made them.
  if (m_weightDecay != 0) grads = torch::_foreach_add(grads, parameters, m_weightDecay);
  torch::_foreach_mul_(buffers, m_momentum);
  torch::_foreach_add_(buffers, grads);
  if (m_negativeRate.defined()) torch::_foreach_add_(parameters, timesRate(buffers, m_negativeRate));
  else torch::_foreach_add_(parameters, buffers, -m_learningRate);
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
