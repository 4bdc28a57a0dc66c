// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "core/train/TrainingEvents.h"

namespace ensemble {

/// Receives the engine's events, on the training thread. Implementations must be quick
/// (the UI's forwards into a queued signal; the CLI's prints a line).
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void onRunStarted(const RunStartedEvent&) {}
  virtual void onStep(const StepEvent&) {}
  virtual void onEpoch(const EpochEvent&) {}
  virtual void onEvaluation(const EvaluationEvent&) {}
  virtual void onCheckpoint(const CheckpointEvent&) {}
  virtual void onPaused(bool /*paused*/) {}
  virtual void onRunFinished(const RunFinishedEvent&) {}
};

}  // namespace ensemble
