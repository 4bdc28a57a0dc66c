// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/SplitOnDevices.h"

#include "core/data/Dataset.h"

namespace ensemble {

const SplitCopy& SplitOnDevices::on(const torch::Device& device) {
  const std::string key = device.str();
  auto it = m_copies.find(key);
  if (it == m_copies.end()) {
    it = m_copies.emplace(key, SplitCopy{m_split.images.to(device), m_split.labels.to(device)}).first;
  }
  return it->second;
}

}  // namespace ensemble
