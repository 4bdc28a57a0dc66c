// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the engine in a worker thread and turns its events into queued Qt signals. Lives
// in the QThread that RunController owns; pause and stop go through the RunControl, which
// is safe to touch from the UI thread while the worker is busy training.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QVector>
#include <functional>
#include <memory>

#include "core/train/TrainingObserver.h"
#include "ui/EngineMetaTypes.h"

namespace ensemble {
class RunControl;
class Trainer;
}  // namespace ensemble

namespace ensemble::ui {

class TrainingWorker final : public QObject, private TrainingObserver {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(TrainingWorker)

 public:
  TrainingWorker() = default;

  /// Trains a new run into `runDirectory` (on the worker thread; blocks it until done).
  void startRun(const ensemble::ExperimentConfig& config, const QString& runDirectory,
                std::shared_ptr<ensemble::RunControl> control);
  /// Continues the run in `runDirectory` from its latest checkpoint.
  void resumeRun(const QString& runDirectory, std::shared_ptr<ensemble::RunControl> control);
  /// Evaluates the latest checkpoint of `runDirectory` on `dataset` (its own when empty).
  void evaluateRun(const QString& runDirectory, const QString& dataset);

 signals:
  void runStarted(const ensemble::RunStartedEvent& event);
  /// Steps coalesced to at most ~10 batches a second; every logged step is included.
  void stepsReady(const QVector<ensemble::StepEvent>& steps);
  void epochFinished(const ensemble::EpochEvent& event);
  void evaluated(const ensemble::EvaluationEvent& event);
  void checkpointWritten(const QString& path);
  void pausedChanged(bool paused);
  void runFinished(const ensemble::RunFinishedEvent& event);
  /// `error` is empty on success.
  void evaluationFinished(const QString& runDirectory, const ensemble::EvaluationResult& result,
                          const QString& error);

 private:
  void execute(const QString& runDirectory, const std::function<std::unique_ptr<Trainer>()>& make,
               const std::shared_ptr<RunControl>& control);
  void flushSteps();

  void onRunStarted(const RunStartedEvent& event) override;
  void onStep(const StepEvent& event) override;
  void onEpoch(const EpochEvent& event) override;
  void onEvaluation(const EvaluationEvent& event) override;
  void onCheckpoint(const CheckpointEvent& event) override;
  void onPaused(bool paused) override;
  void onRunFinished(const RunFinishedEvent& event) override;

  QVector<StepEvent> m_pending;
  QElapsedTimer m_sinceFlush;
};

}  // namespace ensemble::ui
