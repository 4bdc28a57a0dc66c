// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's metrics and checkpoint exported for other tools, in one place for every front end (the window's
// Export and `ensemble-lab-cli export`). Two forms, by the file name's extension:
//   .csv   a copy of metrics.csv;
//   .json  one document: {"run": its folder's name, "config": config.json,
//          "summary": summary.json, "curves": {"0" | "1" | ... | "ensemble":
//          {"train_loss" | "train_accuracy": [[step, value], ...],
//           "test_loss" | "test_accuracy": [[epoch, value], ...]}}}
// Torch-free.
#include <nlohmann/json_fwd.hpp>

#include <string>

namespace ensemble {

/// The .json document of the run in `runDirectory`. Throws IoError or ConfigError naming a
/// missing or damaged file.
nlohmann::json runMetricsDocument(const std::string& runDirectory);

/// Writes the run's metrics to `path` (.csv or .json), atomically. Throws IoError (or
/// ConfigError for another extension).
void exportRunMetrics(const std::string& runDirectory, const std::string& path);

/// Copies the run's latest checkpoint folder into `folder` as <run name>-step-<N> and
/// returns the copy's path. Throws CheckpointError when the run has none yet, IoError when
/// the copy fails (or the target exists already).
std::string exportLatestCheckpoint(const std::string& runDirectory, const std::string& folder);

}  // namespace ensemble
