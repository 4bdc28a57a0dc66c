// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's TensorBoard log regenerated from its files (`ensemble-lab-cli export --run DIR
// --tensorboard OUT`), for runs trained before the live log existed or whose log was
// lost. Same folders and tags as the live log (core/io/TensorBoardLog.h). Torch-free.
#include <string>

namespace ensemble {

/// Writes the log of the run in `runDirectory` into `folder` (one folder per model inside):
/// every value of metrics.csv, each member's learning rate at its logged steps (from
/// config.json and summary.json's steps_per_epoch), and the ensemble's test/brier, test/ece and
/// test/disagreement of its last evaluation from summary.json (metrics.csv has no column
/// for them; the live log has them at every evaluation). Wall times are not in metrics.csv:
/// a point is dated by the training time the run had spent by its step (summary.json's
/// train_seconds spread evenly over its steps) counted from 1970, so TensorBoard's
/// "relative" axis reads as training time and the same run gives the same bytes. Files
/// already in the model folders are replaced where `folder` holds an earlier export of this
/// run (a file in it names the run); a folder holding another log is refused (ConfigError),
/// as two runs' model folders would mix. Throws IoError or ConfigError naming a
/// missing or damaged file; a run folder without config.json is exported all the same,
/// less the learning rates (which only it holds).
struct TensorBoardExported {
  bool learningRates = false;  ///< whether train/learning_rate is in it (config.json was there)
};
TensorBoardExported exportTensorBoard(const std::string& runDirectory, const std::string& folder);

}  // namespace ensemble
