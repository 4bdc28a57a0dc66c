// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run's TensorBoard log: RUN/tensorboard/<model>/events.out.tfevents.<seconds>.<host>,
// one folder per model (member-0, member-1, ... and ensemble), so TensorBoard lists each
// as a run of its own and overlays them. `tensorboard --logdir RUN/tensorboard` shows it.
//
// Tags, from metrics.csv's rows (core/io/MetricsCsvWriter.h):
//   a logged step's row:   train/loss, train/accuracy
//   an epoch's row:        train/epoch_loss, train/epoch_accuracy (the epoch's means),
//                          test/loss, test/accuracy, and for the ensemble test/nll
//   the ensemble, live:    test/brier, test/ece, test/disagreement at each evaluation
//   a member's logged step: train/learning_rate, the rate that step was taken with (from
//                          config.json's lr, lr_warmup_steps and lr_schedule; metrics.csv has no column)
// Steps are the global step. Live, wall times are real; a resumed run rewrites each
// model's file with the points its checkpoint had seen (steps up to its step), so nothing
// is duplicated and nothing stale past the checkpoint is left, and a file torn by a crash
// is replaced, never appended to. `ensemble-lab-cli export --tensorboard` regenerates a
// log from the run's files (core/runs/TensorBoardExport.h). Torch-free.
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/io/MetricsCsvWriter.h"
#include "core/io/TensorBoardEvents.h"

namespace ensemble {

/// The folder a model's events go to: "member-<i>" for metrics.csv's member "i", or "ensemble".
std::string tensorBoardModelName(const std::string& member);
/// The scalars of one metrics.csv row (see the tags above), at `wallTime`.
std::vector<ScalarEvent> tensorBoardScalars(const MetricsRow& row, double wallTime);
/// The ensemble's scores that metrics.csv has no column for (test/brier, test/ece,
/// test/disagreement), unknown (non-finite) ones left out.
std::vector<ScalarEvent> ensembleEvaluationScalars(int64_t step, double wallTime, double brier, double ece,
                                                   double disagreement);
/// A member's train/learning_rate on a logged step's row: `rate`, the rate of the step the
/// row is at. None for other rows and for the ensemble (which has no optimizer of its own).
std::optional<ScalarEvent> learningRateScalar(const MetricsRow& row, double wallTime, double rate);
/// Now, in seconds since 1970: a live point's wall time.
double wallClockSeconds();

class TensorBoardWriter final {
 public:
  /// Starts a log in `folder` (RUN/tensorboard) with a file per model in `models`
  /// (tensorBoardModelName's). With `resumedAtStep`, each model's earlier files are read,
  /// their intact points up to that step written into a fresh file, and the old files
  /// removed. Throws IoError.
  TensorBoardWriter(std::string folder, const std::vector<std::string>& models, std::optional<int64_t> resumedAtStep);
  ~TensorBoardWriter();
  TensorBoardWriter(const TensorBoardWriter&) = delete;
  TensorBoardWriter& operator=(const TensorBoardWriter&) = delete;

  /// Appends one scalar to `model`'s file (buffered until flush()). Throws IoError.
  void add(const std::string& model, const ScalarEvent& scalar);
  /// Hands every file's new records to the OS. Throws IoError (disk full...).
  void flush();

 private:
  struct File {
    std::string path;
    std::FILE* handle = nullptr;
  };
  File& file(const std::string& model);

  std::string m_folder;
  std::map<std::string, File> m_files;
};

}  // namespace ensemble
