// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a run leaves on disk, and who writes it: metrics.csv rows (and the same values in
// the run's TensorBoard log, core/io/TensorBoardLog.h), summary.json, the
// checkpoint assembled from every process's members, and config.json. Only rank 0 writes
// (the other ranks of a group only train); assembling a checkpoint is a collective that
// every rank joins.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/train/TrainingEvents.h"

namespace ensemble {

class Communicator;
class MetricsCsvWriter;
class TensorBoardWriter;
struct MetricsRow;
struct ExperimentConfig;
struct Replica;
struct RunState;

class RunRecorder final {
 public:
  /// `devices` is this process's canonical device list (summary.json's "devices");
  /// `stepsPerEpoch` is 0 for a run opened only to evaluate it; `classes` the models'.
  RunRecorder(const ExperimentConfig& config, RunDirectory directory, Communicator& communicator,
              std::vector<Replica>& replicas, std::string devices, int64_t stepsPerEpoch, int64_t classes);
  ~RunRecorder();
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  const RunDirectory& directory() const { return m_directory; }
  /// Rank 0 alone writes the run folder.
  bool leader() const;

  /// Rank 0: creates the run folder, writes config.json and a first summary.json (a new
  /// run: a reader knows its steps per epoch before the first epoch ends) or removes what
  /// a killed checkpoint write left (a resumed one), and opens metrics.csv cut to the rows
  /// `state` had seen. Throws IoError.
  void open(bool resumed, RunState& state);
  /// The run has written its last file (its final summary): another process may resume it
  /// now, even before this one has let go of the run (the window hears of the end first).
  void releaseFolder() { m_lock = RunWriterLock(); }
  /// The checkpoint `state` came from: no need to write that step again. `metricsCsv` is
  /// the copy of metrics.csv it keeps (none in older checkpoints): open() restores the run
  /// folder's file from it where that lost or changed rows the checkpoint had seen.
  void resumedFrom(int64_t globalStep, std::optional<std::string> metricsCsv);
  /// The run folder's files that a resume's open() writes again from the checkpoint because
  /// they are gone, damaged or edited: "config.json", "metrics.csv".
  std::vector<std::string> filesToRestore() const;
  /// What open() found wrong in the run folder and mended, each said for a person.
  const std::vector<std::string>& notices() const { return m_notices; }

  /// One training row per reported model from `state.window` (members, then the ensemble
  /// in ensemble mode), at `state`'s step.
  void writeTrainingRows(RunState& state);
  /// One row per reported model with the epoch's training means and its test scores.
  void writeEpochRows(const EpochEvent& epoch, RunState& state);
  /// One row per reported model with the test scores of an evaluation between epoch ends
  /// (no training means: those rows have empty train columns).
  void writeEvaluationRows(const EvaluationEvent& evaluation, RunState& state);

  /// Gathers every member's weights and momentum from every process and, on rank 0,
  /// writes them with `state` as the checkpoint of state.globalStep. Returns what was
  /// written (nothing on other ranks, or when that step is already saved). Throws IoError
  /// saying which earlier checkpoint is intact.
  std::optional<CheckpointEvent> checkpoint(const RunState& state);

  /// The run's summary at `state` (every rank computes it; the ranks agree on it).
  RunSummary summarize(RunStatus status, const std::string& message, const RunState& state) const;
  /// Rank 0: writes `summary` as summary.json. Throws IoError.
  void writeSummary(const RunSummary& summary) const;

 private:
  std::size_t memberCount() const;
  /// Rows per epoch or logged step: the members, plus the ensemble in ensemble mode.
  std::size_t reportedRows() const;
  /// A member's index, or "ensemble" for the slot after the members.
  std::string rowName(std::size_t slot) const;
  /// The test rows of `test` at `state`'s step, with `train`'s means (members, then the
  /// ensemble) where given.
  void writeTestRows(const EvaluationResult& test, const std::vector<ModelScore>& train, RunState& state);
  /// `row` into metrics.csv and its values into the TensorBoard log.
  void record(const MetricsRow& row);
  /// Hands both files' rows to the OS and notes metrics.csv's length in `state`.
  void flush(RunState& state);
  /// Whether the run folder's metrics.csv lacks rows (or holds others) where the
  /// checkpoint resumed from kept a copy.
  bool metricsDifferFromCheckpoint() const;
  /// A resumed run's metrics.csv as its checkpoint saw it, where the checkpoint kept a copy;
  /// else the rows lost with no copy to restore them from are said.
  void restoreMetricsSeenBy(const RunState& state);

  const ExperimentConfig& m_config;
  RunDirectory m_directory;
  Communicator& m_communicator;
  std::vector<Replica>& m_replicas;
  std::string m_devices;
  int64_t m_stepsPerEpoch;
  int64_t m_classes;
  std::unique_ptr<MetricsCsvWriter> m_metrics;  ///< rank 0, once open
  std::unique_ptr<TensorBoardWriter> m_tensorboard;  ///< rank 0, once open
  RunWriterLock m_lock;  ///< rank 0, once open: no other process writes the folder meanwhile
  int64_t m_lastCheckpointStep = -1;
  std::optional<std::string> m_checkpointMetrics;  ///< the resumed checkpoint's copy of metrics.csv
  std::vector<std::string> m_notices;
};

}  // namespace ensemble
