// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What each training mode means, answered by the mode itself: how many models a run of it
// reports, which model each replica is, what the replicas average and where, which step
// trains them, whether an ensemble row is recorded, how the batch is split, which device
// layouts it accepts and its default devices. The engine (RunSetup, TrainingStep,
// ScoreLedger, RunRecorder, Evaluator) and the form ask it instead of testing config.mode;
// a new mode is one more class in RunMode.cpp. Torch-free.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/config/ExperimentConfig.h"

namespace ensemble {

/// What the replicas of a step average across devices and processes.
enum class Averaged {
  Nothing,        ///< one model alone
  Probabilities,  ///< the members' softmax probabilities (the ensemble's prediction, pmean)
  Gradients,      ///< the shards' gradients, before each update (one model)
};

/// How one step trains the replicas (core/train/TrainingStep.cpp builds it).
enum class StepStrategy {
  MembersOnOneBatch,  ///< every replica a model of its own, on the whole batch
  ShardsOfOneBatch,   ///< every replica a shard of one model, on its slice of the batch
};

class RunMode {
 public:
  virtual ~RunMode() = default;
  /// The one instance for `mode`.
  static const RunMode& of(TrainingMode mode);

  virtual TrainingMode kind() const = 0;
  virtual Averaged averaged() const = 0;
  virtual StepStrategy stepStrategy() const = 0;
  /// True when the replicas are shards of one model: replica 0 holds it for checkpoints,
  /// evaluation and predictions.
  bool replicasAreOneModel() const { return stepStrategy() == StepStrategy::ShardsOfOneBatch; }
  /// The models a run reports metrics for, over `worldReplicas` replicas of all processes.
  virtual std::size_t modelCount(int worldReplicas) const = 0;
  /// The model the `localReplica`-th replica of a process whose first replica is
  /// `firstReplica` trains: its seed, its checkpoint file, its init_from file.
  virtual std::size_t modelOfReplica(int firstReplica, std::size_t localReplica) const = 0;
  /// Whether metrics.csv and the TensorBoard log carry the ensemble's row after the members'.
  virtual bool recordsEnsembleRow() const = 0;
  /// Images each replica trains on per step, `groupReplicas` replicas in all.
  virtual int64_t batchPerReplica(int64_t batchSize, int64_t groupReplicas) const = 0;
  /// Throws ConfigError, naming the field, when `replicasHere` replicas in each of
  /// `processes` processes, at `batchSize`, cannot train in this mode; `spec` is the device
  /// spec the message quotes.
  virtual void checkReplicas(int processes, int64_t replicasHere, int64_t batchSize, const std::string& spec) const = 0;
  /// The device spec of a run that names none, on a machine with `cudaCount` GPUs.
  virtual std::string defaultDevices(int cudaCount) const = 0;
};

/// Refuses a new ensemble of one member in the whole group (one process, one replica): a
/// person who asks for one model wants single mode, where it is trained and named as one. A
/// rank of a group may hold one member of many, and a run an older version trained as an
/// ensemble of one still opens (checkReplicas lets both through). Throws ConfigError naming
/// `devices` (this process's).
void checkNewEnsembleHasMembers(TrainingMode mode, int processes, int64_t replicasHere, const std::string& devices);

}  // namespace ensemble
