// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Prints a run's progress to stderr: a live, redrawn bar when stderr is a terminal, plain
// periodic lines otherwise (logs, CI, pipes).
#include <chrono>
#include <cstdio>

#include "core/train/TrainingObserver.h"

namespace ensemble::cli {

class ProgressPrinter final : public TrainingObserver {
 public:
  /// `processRank`: this process's rank in a process group; only rank 0 writes a run folder.
  explicit ProgressPrinter(std::FILE* stream, int processRank = 0);

  void onRunStarted(const RunStartedEvent& event) override;
  void onStep(const StepEvent& event) override;
  void onEpoch(const EpochEvent& event) override;
  void onEvaluation(const EvaluationEvent& event) override;
  void onPaused(bool paused) override;
  void onRunFinished(const RunFinishedEvent& event) override;

 private:
  void endBar();
  /// "test accuracy members a% b%, ensemble c% (nll d)" and the line's end.
  void printTestAccuracy(const EvaluationResult& test);

  std::FILE* m_stream;
  bool m_live;
  bool m_barShown = false;
  std::chrono::steady_clock::time_point m_lastPrint{};
  ModelScore m_lastLogged;
  bool m_ensemble = false;
  int m_processRank = 0;
};

}  // namespace ensemble::cli
