// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's summary.json as a struct: where the run ended (or stands, while it trains), its
// setup in brief, its speed and its last evaluation. The engine writes it when a new run
// starts, after every epoch and at the end, and hands the same struct to observers in EpochEvent and
// RunFinishedEvent, so a front end shows a live run from the events and a past run from
// the file, and both read alike. Torch-free and Qt-free.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "core/metrics/EvaluationResult.h"
#include "core/config/ExperimentConfig.h"

namespace ensemble {

/// Running appears only in summary.json of a run in progress (or killed).
enum class RunStatus { Running, Completed, Stopped, Failed };

/// "running", "completed", "stopped" or "failed".
std::string runStatusName(RunStatus status);
/// Inverse of runStatusName; throws ConfigError naming the statuses.
RunStatus parseRunStatus(const std::string& name);

struct RunSummary {
  std::string version;  ///< of EnsembleLab that wrote it
  RunStatus status = RunStatus::Running;
  /// The error of a failed run, how to resume a stopped one; settings are named by their
  /// config.json keys.
  std::string message;

  /// The setup, as trained (config.json holds all of it): summary.json echoes the settings
  /// whose records say so (ConfigField::inSummary); the others keep their defaults here.
  ExperimentConfig setup;
  std::string devices;  ///< this process's canonical device list, e.g. "cpu*4"
  int64_t replicas = 0;  ///< in the whole group
  int64_t processes = 1;
  /// Empty when the same seed gives the same numbers; otherwise the sentence that says why
  /// not (Determinism.h). Summaries written before it was recorded read as reproducible.
  std::string notReproducible;

  // Progress and speed.
  int64_t epochsCompleted = 0;
  int64_t stepsCompleted = 0;
  /// Training steps in one epoch (what places an evaluation between epoch ends on the
  /// epoch axis); 0 in summaries written before it was recorded.
  int64_t stepsPerEpoch = 0;
  /// The training images an epoch draws from (train_limit applied); 0 in summaries written
  /// before it was recorded, and for a run opened only to evaluate it.
  int64_t trainSamples = 0;
  /// The classes the models tell apart (the dataset's largest label + 1); 10 in summaries
  /// written before it was recorded, when every dataset had ten.
  int64_t classes = 10;
  double trainSeconds = 0;      ///< training time, evaluation excluded, over every session
  double secondsPerEpoch = 0;
  double imagesPerSecond = 0;   ///< samples trained per second, summed over the members

  /// The last epoch's test evaluation; none before the first epoch ends.
  std::optional<EvaluationResult> evaluation;

  nlohmann::json toJson() const;
  /// Throws ConfigError naming `origin` and the key for a missing key or a value of the
  /// wrong type.
  static RunSummary fromJson(const nlohmann::json& json, const std::string& origin);
  /// Reads summary.json at `path`. Throws IoError (unreadable) or ConfigError (damaged).
  static RunSummary read(const std::string& path);
};

}  // namespace ensemble
