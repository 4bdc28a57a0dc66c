// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/EpochOrder.h"

#include <torch/torch.h>

#include <stdexcept>

namespace ensemble {

EpochOrder::EpochOrder(const std::vector<int64_t>& permutation, const std::vector<torch::Device>& devices) {
  const torch::Tensor host =
      torch::from_blob(const_cast<int64_t*>(permutation.data()), {int64_t(permutation.size())}, torch::kInt64)
          .clone();
  torch::Tensor pinned;  // made once, for every GPU; the caching host allocator keeps it until each copy is done
  for (const torch::Device& device : devices) {
    const std::string key = device.str();
    if (m_copies.count(key)) continue;
    if (!device.is_cuda()) {
      m_copies[key] = host.to(device);
      continue;
    }
    if (!pinned.defined()) pinned = host.pin_memory();
    m_copies[key] = pinned.to(device, /*non_blocking=*/true);
  }
}

EpochOrder EpochOrder::inBuffer(const torch::Tensor& positions) {
  EpochOrder order;
  order.m_copies[positions.device().str()] = positions;
  return order;
}

torch::Tensor EpochOrder::slice(const torch::Device& device, int64_t begin, int64_t count) const {
  const auto copy = m_copies.find(device.str());
  if (copy == m_copies.end()) {
    throw std::logic_error("EpochOrder: no copy of the epoch's order on " + device.str());
  }
  return copy->second.narrow(0, begin, count);
}

}  // namespace ensemble
