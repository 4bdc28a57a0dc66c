// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The analysis thread's side of AnalysisController: opens a run and asks the engine.
// Each job reports through signals and ends with jobEnded, also when it throws.
#include <QStringList>
#include <atomic>
#include <memory>

#include "ui/AnalysisReports.h"

namespace ensemble::ui {

class AnalysisWorker final : public AnalysisReports {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(AnalysisWorker)

 public:
  AnalysisWorker() = default;

  void sweepShift(const QStringList& runDirectories, ShiftKind kind, const std::vector<double>& levels,
                  const std::shared_ptr<std::atomic<bool>>& cancel);
  void scoreOutOfDistribution(const QStringList& runDirectories, const QString& dataset,
                              const std::shared_ptr<std::atomic<bool>>& cancel);
  void inspect(const QStringList& runDirectories, const std::shared_ptr<std::atomic<bool>>& cancel);

 private:
  /// Opens each run in turn (progress: opening it, then `what`) and hands it to `work`;
  /// stops between runs once cancelled.
  template <typename Work>
  void eachRun(const QStringList& runDirectories, const std::shared_ptr<std::atomic<bool>>& cancel, const QString& what,
               Work work);
  /// Runs `job`, turning an exception into jobEnded's error and a cancel into `cancelled`.
  template <typename Job>
  void guarded(const std::shared_ptr<std::atomic<bool>>& cancel, Job job);
};

}  // namespace ensemble::ui
