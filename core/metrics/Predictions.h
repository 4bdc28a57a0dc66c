// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every model's predicted probabilities for every image of a set: what `predict` writes,
// so that anyone can recompute each figure (pandas, numpy) from the raw numbers.
// Torch-free.
#include <cstdint>
#include <vector>

namespace ensemble {

struct Predictions {
  int64_t classes = 0;
  std::vector<int64_t> labels;              ///< the true class of each image
  std::vector<std::vector<float>> members;  ///< each member's probabilities, [image][class] row-major
  std::vector<float> ensemble;              ///< the mean of the members', [image][class] row-major
};

}  // namespace ensemble
