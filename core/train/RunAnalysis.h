// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An opened run, to be looked at rather than trained: its latest checkpoint evaluated on its
// test set (moved by a dataset shift where asked), against an out-of-distribution set, or
// as every model's raw predictions, optionally on another dataset's test split. What the
// CLI's eval and predict and the window's Uncertainty tab ask for. Torch-free header.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/comm/ProcessGroupOptions.h"
#include "core/config/ExperimentConfig.h"
#include "core/data/DatasetShift.h"
#include "core/data/ImageSet.h"
#include "core/metrics/EvaluationResult.h"
#include "core/metrics/OodResult.h"
#include "core/metrics/Predictions.h"

namespace ensemble {

struct DatasetPair;
struct RunSession;

/// What RunAnalysis::open may change in a saved run to evaluate it on other test data.
struct EvaluationData {
  std::string dataset;                ///< another dataset (name or folder); empty: the run's own
  std::optional<int64_t> testLimit;   ///< its first N test samples (0: all); unset: the run's own limit
};

class RunAnalysis final {
 public:
  /// Opens a run folder at its latest checkpoint, on `evaluation`'s data where it says so
  /// (another dataset's training split may then be of any size). Writes nothing. Throws
  /// CheckpointError for a folder without a usable checkpoint, and the errors of
  /// Trainer::create().
  static std::unique_ptr<RunAnalysis> open(const std::string& runDirectory, const EvaluationData& evaluation = {},
                                           std::shared_ptr<const DatasetPair> data = nullptr,
                                           const ProcessGroupOptions& group = {});
  ~RunAnalysis();
  RunAnalysis(const RunAnalysis&) = delete;
  RunAnalysis& operator=(const RunAnalysis&) = delete;

  /// Evaluates the weights on the test set, moved by `shift` where one is given.
  EvaluationResult evaluate(const std::optional<DatasetShift>& shift = std::nullopt);
  /// How well each member's and the ensemble's uncertainty tells the test set from the
  /// test split of `dataset` (a name or folder, as --dataset takes, or a set made from the
  /// run: inverted, uniform-noise), which may hold any number of images. Throws
  /// DatasetError for an empty set, or images of another size than the model takes.
  OodResult evaluateOutOfDistribution(const std::string& dataset);
  /// Every member's and the ensemble's probabilities for every test image, moved by
  /// `shift` where one is given.
  Predictions predict(const std::optional<DatasetShift>& shift = std::nullopt);
  /// The test images predict() sees (the same order, moved by `shift` where given).
  ImageSet testImages(const std::optional<DatasetShift>& shift = std::nullopt);

  /// The run's settings, with the dataset and test limit it was opened on.
  const ExperimentConfig& config() const;
  /// The step of the checkpoint opened.
  int64_t globalStep() const;

 private:
  explicit RunAnalysis(std::unique_ptr<RunSession> session);
  std::unique_ptr<RunSession> m_session;
};

}  // namespace ensemble
