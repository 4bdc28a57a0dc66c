// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One training step of the replicas this process drives, one strategy per mode:
//   - EnsembleStep.cpp: every member trains on the same batch (separately, or stacked into
//     one network), then MemberAveraging.cpp averages their probabilities into the
//     ensemble's prediction and scores it;
//   - DataParallelStep.cpp: the replicas are one model; each trains on its shard of the
//     batch and their gradients are averaged before the update.
// A step returns its scores still on the device: the loop hands them to the ScoreLedger,
// which reads them back in bulk (reading them every step would wait for a GPU each step).
#include <torch/types.h>

#include <memory>
#include <vector>

namespace ensemble {

class Communicator;
class EpochOrder;
class ReplicaWorkers;
class SplitOnDevices;
struct ExperimentConfig;
struct Replica;

class TrainingStep {
 public:
  virtual ~TrainingStep() = default;

  /// Trains every local replica one step on the batch of positions [begin, begin + batch
  /// size) of `order` (the same on every process of the group). Returns
  /// float64 [rows, 3] (mean loss, correct predictions, samples) on the first replica's
  /// device: one row per local replica, then, for an ensemble of several members, the
  /// ensemble's row.
  virtual torch::Tensor train(const EpochOrder& order, int64_t begin) = 0;

  /// The learning rate of the next steps, for every optimizer the step updates (the
  /// replicas', and the stacked network's). Called before each step where lr_schedule is
  /// not constant.
  virtual void setLearningRate(double learningRate) = 0;
};

/// Sets `learningRate` on every replica's optimizer.
void setLearningRate(std::vector<Replica>& replicas, double learningRate);

/// What a step works on; all of it outlives the step.
struct TrainingStepParts {
  const ExperimentConfig& config;
  std::vector<Replica>& replicas;
  Communicator& communicator;  ///< averages across every replica of the group
  ReplicaWorkers& workers;     ///< runs the local replicas side by side
  SplitOnDevices& train;       ///< the training split on each replica's device
};

/// The step for `parts.config`'s mode and member form. Throws ConfigError when stacked
/// members do not share one device.
std::unique_ptr<TrainingStep> makeTrainingStep(const TrainingStepParts& parts);
std::unique_ptr<TrainingStep> makeEnsembleStep(const TrainingStepParts& parts);
std::unique_ptr<TrainingStep> makeDataParallelStep(const TrainingStepParts& parts);

/// A score row on `loss`'s device: the mean loss, the number of correct predictions, the
/// samples.
torch::Tensor scoreRow(const torch::Tensor& loss, const torch::Tensor& correct, int64_t samples);

}  // namespace ensemble
