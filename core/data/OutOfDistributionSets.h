// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Out-of-distribution sets made from a run itself, so `eval --ood` and the Uncertainty
// tab's OOD page work without a second dataset (a Fashion-MNIST model refuses every other
// installed set: their images are another size):
//   "inverted"       the run's own test images as their negative (255 - x): the same
//                    shapes, far from anything trained on;
//   "uniform-noise"  as many images of uniform random pixels, at the run's image size,
//                    seeded (the same set for the same run).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/data/Dataset.h"
#include "core/data/OutOfDistributionSetNames.h"

namespace ensemble {

/// The built-in set `name` made from `test` (the run's test split), or nullopt when
/// `name` is none of them.
std::optional<Dataset> makeOutOfDistributionSet(const std::string& name, const Dataset& test, std::uint64_t seed);

}  // namespace ensemble
