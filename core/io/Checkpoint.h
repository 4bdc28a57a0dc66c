// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Checkpoints: checkpoints/step-<N>/ holds member-<i>.pt (weights, a plain state_dict that
// Python's torch.load reads), member-<i>-optimizer.pt (momentum buffers), metrics.csv (the
// run's metrics.csv as it was at that step, so a resume restores rows the run folder's copy
// lost) and manifest.json (config, run state, and each file's size and CRC-32). A checkpoint is
// written under a temporary name and renamed into place, then checkpoints/latest is
// pointed at it; a crash at any moment leaves the previous checkpoint usable.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/common/TensorDict.h"
#include "core/io/CheckpointPresence.h"

namespace ensemble {

struct CheckpointData {
  nlohmann::json config;  ///< ExperimentConfig::toJson()
  nlohmann::json state;   ///< RunState::toJson()
  std::vector<TensorDict> weights;    ///< one per saved model
  std::vector<TensorDict> optimizer;  ///< one per saved model
  /// metrics.csv's first state.metrics_bytes bytes; none in a checkpoint written before
  /// checkpoints kept it (or by a process that writes no metrics).
  std::optional<std::string> metricsCsv;
};

/// Writes the checkpoint for `globalStep` under `checkpointsDir` and keeps the newest
/// `keep` checkpoints. Returns the checkpoint's folder. Throws IoError; on failure the
/// previous checkpoint is untouched.
std::string writeCheckpoint(const std::string& checkpointsDir, int64_t globalStep,
                            const CheckpointData& data, int keep = 2);

/// Removes what a process killed mid-write or mid-removal left behind (hidden staging and
/// retired folders); a run does this when it resumes, so the folder holds only whole
/// checkpoints. A step-* folder is never half-written nor half-deleted.
void removeIncompleteCheckpoints(const std::string& checkpointsDir);

/// The folder checkpoints/latest points to, or where that folder was removed (or `latest`
/// itself is missing), the newest checkpoint left. Throws CheckpointError when there is
/// none, naming a run folder that does not exist as such.
std::string latestCheckpoint(const std::string& checkpointsDir);

/// The step a checkpoint folder was written at, read from its name (step-000000042: 42); -1
/// for a folder not named as one.
int64_t checkpointStep(const std::string& checkpointDir);

/// The newest whole checkpoint older than `checkpointDir`, beside it; empty when there is none.
std::string checkpointBefore(const std::string& checkpointDir);

/// The weights file a checkpoint keeps beside the optimizer-state file `path`
/// (`.../member-1-optimizer.pt` -> `.../member-1.pt`); empty when `path` is not named as one.
std::string weightsBesideOptimizerState(const std::string& path);

/// The weights files a path to start a run from names: the path itself where it is a file;
/// for a run folder (or its checkpoints/) its latest checkpoint's, for a checkpoint folder
/// its own, one per model (member-0.pt, member-1.pt, ...); and a path through
/// checkpoints/latest, which is a file naming the newest checkpoint, as if it were that
/// folder. Throws CheckpointError for a folder with no checkpoint or no weights in it.
std::vector<std::string> weightFilesAt(const std::string& path);

/// Reads and verifies (sizes and CRC-32) a checkpoint folder. Throws CheckpointError
/// naming the damaged file and, where there is one, the whole checkpoint before it (an
/// unreadable file or another format names no other).
CheckpointData readCheckpoint(const std::string& checkpointDir);

}  // namespace ensemble
