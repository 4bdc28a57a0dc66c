// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A sweep: every combination of a grid of settings over a base config, trained one run
// after another, each in its own folder under the sweep's folder. The plan and each job's
// state live in SWEEP/sweep.json (rewritten atomically at every change), so an interrupted
// sweep resumes where it stopped and a failed job is recorded while the others go on.
//   sweep.json: {"format": 1, "base": {config.json}, "grid": [{"key": "lr", "values": [..]},
//                {"keys": ["batch_size", "lr"], "values": [[256, 0.1], [512, 0.2]]}],
//                "jobs": [{"name": "001-lr=0.05-seed=0", "settings": {"lr": 0.05, "seed": 0},
//                          "status": "pending|running|completed|failed|stopped",
//                          "message": "..."}]}
// Torch-free: the CLI's `sweep` and the window's queue run the jobs.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/config/ExperimentConfig.h"
#include "core/io/RunWriterLock.h"

namespace ensemble {

/// One setting and the values it takes, in the order given; or settings that move together
/// ("batch_size,lr=256:0.1,512:0.2": d2l's learning rate scaled with the batch), each point
/// giving every one of them its value.
struct SweepAxis {
  std::vector<std::string> keys;  ///< config.json keys: one, or those paired
  /// The axis's points in order, each a value per key.
  std::vector<std::vector<nlohmann::json>> points;
  /// The points as typed, for job names ("1e9"); may be empty.
  std::vector<std::vector<std::string>> texts;

  /// "lr", or "batch_size,lr" for paired settings.
  std::string name() const;
  bool sets(const std::string& key) const;
  /// Point `index` as typed: "0.1", "256:0.1".
  std::string pointText(std::size_t index) const;
};

enum class JobStatus { Pending, Running, Completed, Failed, Stopped };
/// "pending", "running", "completed", "failed", "stopped".
std::string jobStatusName(JobStatus status);

struct SweepJob {
  std::string name;         ///< its run folder under the sweep's: "003-lr=0.1-seed=0"
  nlohmann::json settings;  ///< its grid values: {"lr": 0.1, "seed": 0}
  JobStatus status = JobStatus::Pending;
  std::string message;      ///< why it failed or stopped
};

struct Sweep {
  nlohmann::json base;  ///< ExperimentConfig::toJson() of what every job shares
  std::vector<SweepAxis> grid;
  std::vector<SweepJob> jobs;

  /// The base config with the job's settings laid over it.
  ExperimentConfig configOf(const SweepJob& job) const;
  nlohmann::json toJson() const;
  /// Throws ConfigError naming `origin` when the file is not a sweep.
  static Sweep fromJson(const nlohmann::json& json, const std::string& origin);
};

/// "lr=0.05,0.1" (a setting by its config.json key or its flag, and its values), or settings
/// paired, "batch_size,lr=256:0.1,512:0.2" (each point's values split at its last colons, so
/// the first setting's value may hold one: "devices,lr=cuda:0:0.1,cuda*2:0.2"). Throws
/// ConfigError naming an unknown setting (and listing the known ones), a missing '=' or
/// value, a point with too few values, or a value of the wrong kind ("batch_size=1.5").
SweepAxis parseSweepAxis(const std::string& text);

/// Why `axis` cannot be swept as given: a value (a point, for paired settings) that repeats an
/// earlier one, compared as values (0.1 and 0.10 are one), would train the same job twice.
/// Empty when every point differs.
std::string whyValuesRepeat(const SweepAxis& axis);

/// Every combination of `grid` over `base`, the first axis varying slowest. Every job's
/// config is validated here, so an invalid value is refused, naming the setting and value,
/// before any job starts. Throws ConfigError (also for an empty grid, a setting in two axes or
/// a value twice).
Sweep planSweep(const ExperimentConfig& base, const std::vector<SweepAxis>& grid);

/// SWEEP/sweep.json, written atomically; throws IoError.
void writeSweep(const std::string& folder, const Sweep& sweep);
/// Throws ConfigError when `folder` has no readable sweep.json.
Sweep readSweep(const std::string& folder);
/// Whether `folder` holds a sweep.json.
bool holdsSweep(const std::string& folder);
/// The sweep folder whose sweep.json `file` is (however the path is spelled: links, "..");
/// empty where it is none. Written over, the sweep could no longer be resumed.
std::string sweepOwningFile(const std::string& file);

/// Locks sweep `folder` for this process while it runs the sweep (the CLI's `sweep`, the
/// window's Sweep tab): two would train the same jobs and each record the other's as failed.
/// Throws ConfigError, saying who may hold it and what to do, when another holds it.
RunWriterLock lockSweep(const std::string& folder);

/// A continued sweep (CLI `sweep --resume`, the window's Open sweep) tries its failed jobs
/// again, from their checkpoint where they wrote one: what failed them (a full disk, a dataset
/// not there yet) may have been put right, as their messages ask. Sets them back to pending
/// and returns them as they were (names and messages), for the caller to say so.
std::vector<SweepJob> retryFailedJobs(Sweep& sweep);

/// Clears what an earlier attempt at a job left in `run` without a checkpoint (nothing in it
/// to keep), for the job to start afresh. Throws IoError, removing nothing, when another
/// process is training it now (RunWriterLock): its files are not ours to remove.
void clearJobWithoutCheckpoint(const std::string& run);

/// The test accuracy (the ensemble's, or the single model's) a finished job's summary.json
/// records, read from the job's folder in `folder`; none while it has no evaluation or the
/// file cannot be read. For a sweep opened from disk: a running sweep learns its jobs'
/// scores from their events.
std::optional<double> jobTestAccuracy(const std::string& folder, const SweepJob& job);

}  // namespace ensemble
