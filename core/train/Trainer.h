// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The engine's front door for training: trains one run (single, ensemble or data-parallel)
// on the replicas its device spec names, writes the run folder, and reports progress
// through a TrainingObserver. An opened run's evaluations are RunAnalysis's job. Torch-free
// header, so the CLI and the UI need no LibTorch headers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/comm/ProcessGroupOptions.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/TrainingEvents.h"

namespace ensemble {

struct DatasetPair;
class RunControl;
struct RunSession;
class TrainingObserver;

class Trainer final {
 public:
  /// Prepares a new run: validates `config`, loads the dataset (unless `data` is given),
  /// resolves the devices and initialises the replicas. Writes nothing, so bad input
  /// leaves no misleading run folder. Throws ConfigError, DatasetError or DeviceError.
  /// With a distributed `group`, this process is one rank of a multi-process run: it
  /// waits here for every other rank (or throws DistributedError naming the missing one),
  /// trains the members or the shard of its own devices, and only rank 0 writes
  /// `runDirectory`.
  static std::unique_ptr<Trainer> create(ExperimentConfig config, std::string runDirectory,
                                         std::shared_ptr<const DatasetPair> data = nullptr,
                                         const ProcessGroupOptions& group = {});

  /// Reopens a run folder at its latest checkpoint to resume it. Throws CheckpointError
  /// for a folder without a usable checkpoint, and the errors of create(). In a
  /// multi-process run every rank reads the folder (a shared filesystem) and loads its own
  /// members.
  static std::unique_ptr<Trainer> open(const std::string& runDirectory, std::shared_ptr<const DatasetPair> data = nullptr,
                                       const ProcessGroupOptions& group = {});

  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Trains until the configured epochs are done, a stop is requested, or an error
  /// occurs. Never throws for training errors: a failed run returns status Failed with
  /// the message, keeping its metrics and its last good checkpoint. `observer` and
  /// `control` may be null.
  [[nodiscard]] RunFinishedEvent run(TrainingObserver* observer, RunControl* control);

  const ExperimentConfig& config() const;
  const std::string& runDirectory() const;
  /// The canonical device list of this process, e.g. "cpu*4".
  std::string devices() const;
  /// This process's rank (0 when alone); only rank 0 writes the run folder.
  int processRank() const;
  /// On a rank other than 0: where rank 0 writes the run ("PATH on host HOST"); else empty.
  std::string rankZerosFolder() const;
  int64_t stepsPerEpoch() const;
  int64_t globalStep() const;
  /// A reopened run's files that run() writes again from its checkpoint because they are
  /// gone, damaged or edited ("config.json", "metrics.csv"; a completed run's too, in a run
  /// of no steps).
  std::vector<std::string> filesToRestore() const;

 private:
  explicit Trainer(std::unique_ptr<RunSession> session);
  std::unique_ptr<RunSession> m_session;
};

}  // namespace ensemble
