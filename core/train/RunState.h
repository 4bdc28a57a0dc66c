// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a run stands: position, time, and the running means not yet logged. A checkpoint
// stores it so that a resumed run continues exactly. Torch-free.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

/// Sums for the mean loss and accuracy over some steps.
struct ScoreAccumulator {
  double lossSum = 0;  ///< sum of per-step mean losses
  int64_t correct = 0;
  int64_t samples = 0;
  int64_t steps = 0;

  void add(double stepLoss, int64_t stepCorrect, int64_t stepSamples);
  ModelScore mean() const;
};

struct RunState {
  int64_t epoch = 0;        ///< epochs completed = 0-based index of the epoch in progress
  int64_t stepInEpoch = 0;  ///< steps done in the epoch in progress
  int64_t globalStep = 0;
  double trainSeconds = 0;
  int64_t samplesTrained = 0;  ///< summed over members
  std::uint64_t metricsBytes = 0;  ///< length of metrics.csv at this state
  /// The training images the run trains on (after train_limit), so a resume can tell its
  /// dataset changed from a damaged checkpoint; 0 in checkpoints from before it was kept.
  int64_t trainSamples = 0;
  /// The content of the training and test splits the run trains on (Dataset::contentDigest),
  /// so a resume can tell a dataset whose images changed but not their count; empty in
  /// checkpoints from before they were kept.
  std::string trainSetDigest, testSetDigest;
  /// One per member, then the ensemble: since the last logged step, and over the epoch.
  std::vector<ScoreAccumulator> window;
  std::vector<ScoreAccumulator> epochTotals;
  std::optional<EvaluationResult> lastEvaluation;

  nlohmann::json toJson() const;
  /// Throws CheckpointError naming `origin` for a malformed record.
  static RunState fromJson(const nlohmann::json& json, const std::string& origin);
};

}  // namespace ensemble
