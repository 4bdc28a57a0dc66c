// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The names of the out-of-distribution sets made from a run itself (OutOfDistributionSets.h
// makes them), torch-free: the CLI's completions offer them without LibTorch.
#include <string>
#include <vector>

namespace ensemble {

/// The built-in sets' names, in the order a picker offers them.
std::vector<std::string> builtInOutOfDistributionSets();
/// One line on what `name` holds; empty when it is no built-in set.
std::string describeOutOfDistributionSet(const std::string& name);

}  // namespace ensemble
