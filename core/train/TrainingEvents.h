// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Plain structs the engine reports through TrainingObserver. Torch-free and Qt-free: the
// CLI prints them, the UI turns them into queued signals and keeps the live run's record
// from them (it never reads a live run's files).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics/EvaluationResult.h"
#include "core/runs/RunSummary.h"

namespace ensemble {

struct RunStartedEvent {
  std::string runDirectory;
  /// On a rank other than 0, which writes no folder: where rank 0 writes the run ("PATH on
  /// host HOST"); empty on rank 0 and in one process.
  std::string rankZerosFolder;
  ExperimentConfig config;  ///< as the run trains it (config.json)
  std::string devices;  ///< this process's canonical device list, e.g. "cpu*4"
  int replicas = 1;     ///< in the whole group
  int processes = 1;    ///< in the group (c10d's world size)
  int64_t stepsPerEpoch = 0;
  int64_t startStep = 0;  ///< > 0 when resuming
  int64_t trainSamples = 0;   ///< in this run's training split (after train_limit)
  int64_t imageHeight = 0, imageWidth = 0;
  int64_t classes = 0;        ///< the models', the dataset's largest label + 1
  /// Warnings for a person, empty as a rule: what the data means for the training (a class
  /// the training split has no image of), and what the run found wrong in its folder as it
  /// opened and mended (a resumed run's metrics.csv restored from its checkpoint).
  std::vector<std::string> notices;
};

/// Sent after every training step. Train metrics are the means over the steps since the
/// previous logged step and are present only when `logged` is true.
struct StepEvent {
  int64_t epoch = 0;        ///< 1-based
  int64_t epochs = 0;
  int64_t stepInEpoch = 0;  ///< 1-based
  int64_t stepsPerEpoch = 0;
  int64_t globalStep = 0;   ///< steps done, 1-based
  int64_t totalSteps = 0;
  bool logged = false;
  std::vector<ModelScore> members;  ///< one per member (one for single / data-parallel)
  ModelScore ensemble;  ///< the ensemble's NLL and accuracy on the same batches
  double imagesPerSecond = 0;  ///< samples/s summed over members, since the run (re)started
  double elapsedSeconds = 0;   ///< training time, including before a resume
  double etaSeconds = 0;
  /// The rate this step trained with, where it varies (a warmup or a schedule:
  /// learningRateVaries); none for a constant rate, which the run's settings say.
  std::optional<double> learningRate;
};

/// Sent after the evaluation at the end of every epoch.
struct EpochEvent {
  int64_t epoch = 0;  ///< 1-based, the epoch just finished
  int64_t epochs = 0;
  int64_t globalStep = 0;
  std::vector<ModelScore> train;  ///< per member, means over the epoch
  ModelScore ensembleTrain;
  EvaluationResult test;
  double epochSeconds = 0;  ///< training time of this epoch, evaluation excluded
  RunSummary summary;       ///< summary.json as written after this epoch
};

/// Sent after an evaluation between epoch ends (every `eval_every` steps). The epoch's own
/// evaluation comes in EpochEvent, never here.
struct EvaluationEvent {
  int64_t epoch = 0;          ///< 1-based, the epoch in progress
  int64_t globalStep = 0;     ///< steps done when the weights were evaluated
  int64_t stepsPerEpoch = 0;
  double elapsedSeconds = 0;  ///< training time so far, evaluations excluded
  EvaluationResult test;
  /// Where the evaluation sits on an epoch axis: 2.25 is a quarter into the third epoch.
  double epochPosition() const {
    return stepsPerEpoch > 0 ? double(globalStep) / double(stepsPerEpoch) : double(epoch);
  }
};

struct CheckpointEvent {
  std::string path;
  int64_t globalStep = 0;
};

struct RunFinishedEvent {
  RunStatus status = RunStatus::Completed;
  std::string message;  ///< the error for a failed run; how to resume for a stopped one
  std::string runDirectory;
  /// summary.json as the run left it; none when the run ended before it had a folder
  /// (its setup, data or devices were refused).
  std::optional<RunSummary> summary;
};

}  // namespace ensemble
