// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/LocalCommunicator.h"

#include <torch/torch.h>

namespace ensemble {

void LocalCommunicator::allReduceMean(std::vector<at::Tensor>& perReplica) {
  TORCH_CHECK(int(perReplica.size()) == m_replicas, "LocalCommunicator expected ", m_replicas,
              " tensors, got ", perReplica.size());
  if (perReplica.size() == 1) return;
  torch::NoGradGuard noGrad;
  const torch::Device home = perReplica.front().device();
  torch::Tensor sum = perReplica.front().clone();
  for (std::size_t i = 1; i < perReplica.size(); ++i) sum.add_(perReplica[i].to(home));
  sum.div_(double(perReplica.size()));
  for (auto& tensor : perReplica) tensor.copy_(sum);
}

std::vector<at::Tensor> LocalCommunicator::allGather(const std::vector<at::Tensor>& perReplica) {
  TORCH_CHECK(int(perReplica.size()) == m_replicas, "LocalCommunicator expected ", m_replicas,
              " tensors, got ", perReplica.size());
  std::vector<at::Tensor> gathered;
  for (const auto& tensor : perReplica) gathered.push_back(tensor.cpu());
  return gathered;
}

}  // namespace ensemble
