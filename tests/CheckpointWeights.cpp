// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/CheckpointWeights.h"

#include <torch/torch.h>

#include <algorithm>

#include "core/io/Checkpoint.h"

namespace testing {

std::vector<ensemble::TensorDict> latestWeights(const std::string& runDirectory) {
  return ensemble::readCheckpoint(ensemble::latestCheckpoint(runDirectory + "/checkpoints")).weights;
}

bool identical(const std::vector<ensemble::TensorDict>& a, const std::vector<ensemble::TensorDict>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size()) return false;
    for (const auto& item : a[i]) {
      if (!b[i].contains(item.key()) || !torch::equal(item.value(), b[i].at(item.key()))) return false;
    }
  }
  return true;
}

double maxDifference(const std::vector<ensemble::TensorDict>& a,
                     const std::vector<ensemble::TensorDict>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (const auto& item : a[i]) {
      const torch::Tensor other = b[i].at(item.key());
      if (!item.value().is_floating_point()) continue;
      worst = std::max(worst, (item.value() - other).abs().max().item<double>());
    }
  }
  return worst;
}

}  // namespace testing
