// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a person should know of a dataset's classes before training on it: classes the test
// split has but the training split holds no image of. Such a class cannot
// be learnt, and a run on it trains without a word otherwise (a --train-limit that takes the
// first images of a file sorted by class trains on one class, and scores 0.4 with no hint why).
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

struct DatasetPair;

/// One line per finding, for a person (empty as a rule): the classes below `classes` that
/// the test split has and the training split has no image of, with how many test images
/// that costs. `trainLimit` > 0 where the run keeps the training split's first images: the
/// line says so, as it may be why.
std::vector<std::string> classCoverageNotices(const DatasetPair& data, int64_t classes, int64_t trainLimit);

/// "5", "1-9", "0, 3, 7-9": class numbers (ascending) as a person reads a list of them.
std::string formatClassList(const std::vector<int64_t>& classes);

}  // namespace ensemble
