// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How many classes an opened run's models tell apart, and whether a dataset's labels fit them.
// A dataset's classes are its largest label + 1 (loadDataset), so a run trained on EMNIST's
// letters has 27 outputs; the checkpoint's weights say so, and an evaluation on another dataset
// must keep to them.
#include <cstdint>
#include <optional>
#include <string>

#include "core/data/Dataset.h"
#include "core/models/ModelRegistry.h"

namespace ensemble {

struct CheckpointData;

/// The classes of a checkpoint's models: the rows of the last layer's weight
/// (classifierHeadWeight). Nothing where the checkpoint lacks it: restoring its weights then
/// says what is wrong.
std::optional<int64_t> savedClassCount(const CheckpointData& saved, ModelKind model);

/// The classes the opened run's models are built for, `saved`, once `data` (named `dataset`) is
/// checked against them: an evaluation on another dataset (`evaluationOnly`) needs its test
/// labels among them; the run's own dataset must still have as many (it changed otherwise).
/// Throws DatasetError saying which.
int64_t classesForOpenedRun(const DatasetPair& data, int64_t saved, bool evaluationOnly, const std::string& dataset);

}  // namespace ensemble
