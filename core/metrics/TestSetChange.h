// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether a run's own test set is still the one it was scored on as it trained: its
// dataset folder may have been replaced since, and a new evaluation's numbers then differ
// from summary.json's for that reason alone, which nothing else would tell. The CLI's
// `eval` and the window's Evaluate both say so. Torch-free.
#include <string>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

/// The sentence that says how the test set scored `now` differs from the one scored `then`
/// (summary.json's last evaluation): another number of images, or as many whose bytes or
/// labels differ (test_set_crc32); empty when they are the same or nothing tells.
std::string changedTestSetNote(const EvaluationResult& then, const EvaluationResult& now);

}  // namespace ensemble
