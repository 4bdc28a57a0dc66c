// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The engine's front door: trains one run (single, ensemble or data-parallel) on the
// replicas its device spec names, writes the run folder, and reports progress through a
// TrainingObserver. Torch-free header, so the CLI and the UI need no LibTorch headers.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/comm/ProcessGroupOptions.h"
#include "core/data/DatasetShift.h"
#include "core/data/ImageSet.h"
#include "core/metrics/EvaluationResult.h"
#include "core/metrics/OodResult.h"
#include "core/metrics/Predictions.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/TrainingEvents.h"

namespace ensemble {

struct DatasetPair;
class RunControl;
class TrainingObserver;

/// What Trainer::open may change in a saved run to evaluate it on other test data.
struct EvaluationData {
  std::string dataset;                ///< another dataset (name or folder); empty: the run's own
  std::optional<int64_t> testLimit;   ///< its first N test samples (0: all); unset: the run's own limit
};

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

  /// Reopens a run folder at its latest checkpoint, to resume it or to evaluate it (on
  /// `evaluation`'s data where it says so; opened on another dataset, it only evaluates). Throws CheckpointError for a folder without a
  /// usable checkpoint, and the errors of create(). In a multi-process run every rank
  /// reads the folder (a shared filesystem) and loads its own members.
  static std::unique_ptr<Trainer> open(const std::string& runDirectory,
                                       const EvaluationData& evaluation = {},
                                       std::shared_ptr<const DatasetPair> data = nullptr,
                                       const ProcessGroupOptions& group = {});

  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Trains until the configured epochs are done, a stop is requested, or an error
  /// occurs. Never throws for training errors: a failed run returns status Failed with
  /// the message, keeping its metrics and its last good checkpoint. `observer` and
  /// `control` may be null.
  [[nodiscard]] RunFinishedEvent run(TrainingObserver* observer, RunControl* control);

  /// Evaluates the current weights on the test set, moved by `shift` where one is given.
  EvaluationResult evaluate(const std::optional<DatasetShift>& shift = std::nullopt);
  /// How well each member's and the ensemble's uncertainty tells the test set from the
  /// test split of `dataset` (a name or folder, as --dataset takes), which may hold any
  /// number of images. Throws DatasetError for an empty set, or images of another size
  /// than the model takes.
  OodResult evaluateOutOfDistribution(const std::string& dataset);
  /// Every member's and the ensemble's probabilities for every test image, moved by
  /// `shift` where one is given.
  Predictions predict(const std::optional<DatasetShift>& shift = std::nullopt);
  /// The test images predict() sees (the same order, moved by `shift` where given).
  ImageSet testImages(const std::optional<DatasetShift>& shift = std::nullopt);

  const ExperimentConfig& config() const;
  const std::string& runDirectory() const;
  /// The canonical device list of this process, e.g. "cpu*4".
  std::string devices() const;
  /// This process's rank (0 when alone); only rank 0 writes the run folder.
  int processRank() const;
  /// 0 when opened to evaluate on another dataset.
  int64_t stepsPerEpoch() const;
  int64_t globalStep() const;

 private:
  struct Impl;
  explicit Trainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ensemble
