// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the Uncertainty view's computations (dataset-shift sweeps, out-of-distribution
// scores, predictions for the gallery) in a thread of their own, so they never block the
// window and can run while another run trains. One job at a time; cancel() stops a sweep
// between two levels. Reopens the run from its latest checkpoint for each job.
#include <QStringList>
#include <QThread>
#include <atomic>
#include <memory>

#include "ui/AnalysisReports.h"

namespace ensemble::ui {

class AnalysisWorker;

class AnalysisController final : public AnalysisReports {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(AnalysisController)

 public:
  explicit AnalysisController(QObject* parent = nullptr);
  ~AnalysisController() override;

  bool isBusy() const { return m_busy; }

  /// Evaluates each run at each level of `kind`; shiftCurveReady per run. Ignored while busy.
  void sweepShift(const QStringList& runDirectories, ShiftKind kind, const std::vector<double>& levels);
  /// Scores `dataset` (a name or folder) as out-of-distribution for each run;
  /// outOfDistributionReady per run.
  void scoreOutOfDistribution(const QStringList& runDirectories, const QString& dataset);
  /// Every model's predictions on each run's test set, with the images; inspectionReady
  /// per run.
  void inspect(const QStringList& runDirectories);
  /// Stops the job at its next level; jobEnded(cancelled) follows.
  void cancel();

 signals:
  // AnalysisReports' signals (progress, results, jobEnded) are emitted in the analysis
  // thread (connect with the default or a queued connection from widgets), except jobEnded,
  // in the window's, as busyChanged.
  void busyChanged(bool busy);

 private:
  template <typename Job>
  void begin(Job job);

  QThread m_thread;
  AnalysisWorker* m_worker;  // lives in m_thread, deleted when it finishes
  std::shared_ptr<std::atomic<bool>> m_cancel;
  bool m_busy = false;
};

}  // namespace ensemble::ui
