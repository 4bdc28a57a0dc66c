// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's checkpointed weights as tensors, for the tests that look inside them (those that
// only compare two runs use testing::sameLatestWeights, tests/TestSupport.h).
#include <string>
#include <vector>

#include "core/common/TensorDict.h"

namespace testing {

/// Weights of every model in the run's latest checkpoint, read from the files on disk.
std::vector<ensemble::TensorDict> latestWeights(const std::string& runDirectory);

/// True when both lists hold the same names and bit-identical tensors.
bool identical(const std::vector<ensemble::TensorDict>& a, const std::vector<ensemble::TensorDict>& b);

/// Largest absolute difference over all tensors of two same-shaped lists.
double maxDifference(const std::vector<ensemble::TensorDict>& a,
                     const std::vector<ensemble::TensorDict>& b);

}  // namespace testing
