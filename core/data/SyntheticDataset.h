// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small generated dataset for tests and smoke runs: ten classes of 16x16 images, each a
// fixed random template plus noise. Learnable in a few steps, the same on every machine.
#include "core/data/Dataset.h"

namespace ensemble {

/// The synthetic dataset's classes (its labels are 0-9).
constexpr int64_t kSyntheticClasses = 10;

struct SyntheticOptions {
  int64_t trainSize = 2048;
  int64_t testSize = 512;
  int64_t side = 16;
};

/// Generates the synthetic dataset; deterministic (its own fixed seed, not the run's).
DatasetPair makeSyntheticDataset(const SyntheticOptions& options = {});

}  // namespace ensemble
