// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Owns the training thread and its worker, and is what the window talks to: start, pause,
// resume, stop. Its destructor stops a run cleanly (the run checkpoints) and waits for the
// thread, as Qt's Mandelbrot example does.
#include <QObject>
#include <QThread>
#include <memory>

#include "ui/EngineMetaTypes.h"

namespace ensemble {
class RunControl;
}

namespace ensemble::ui {

class TrainingWorker;

class RunController final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunController)

 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  bool isRunning() const { return m_running; }
  bool isPaused() const { return m_paused; }
  /// A stop was asked for and the run has not reached its next step boundary yet.
  bool isStopping() const;

  /// Starts a new run; ignored while one is running.
  void start(const ensemble::ExperimentConfig& config, const QString& runDirectory);
  /// Continues an interrupted run from its latest checkpoint.
  void resume(const QString& runDirectory);
  /// Evaluates a saved run's latest checkpoint in the worker thread (the controller is
  /// busy meanwhile); evaluationFinished follows.
  void evaluate(const QString& runDirectory, const QString& dataset);
  void pause();
  void unpause();
  /// Asks the run to stop at the next step; runFinished follows.
  void stop();
  /// Stops a running run and blocks until it has finished (used when the window closes).
  void stopAndWait();

 signals:
  void runStarted(const ensemble::RunStartedEvent& event);
  void stepsReady(const QVector<ensemble::StepEvent>& steps);
  void epochFinished(const ensemble::EpochEvent& event);
  /// An evaluation between epoch ends (eval_every).
  void evaluated(const ensemble::EvaluationEvent& event);
  void pausedChanged(bool paused);
  void runFinished(const ensemble::RunFinishedEvent& event);
  void evaluationFinished(const QString& runDirectory, const ensemble::EvaluationResult& result,
                          const QString& error);

 private:
  struct ThreadStopper {
    void operator()(QThread* thread) const;
  };
  bool begin();

  std::unique_ptr<QThread, ThreadStopper> m_thread;
  TrainingWorker* m_worker = nullptr;  // owned by m_thread (deleteLater on finish)
  std::shared_ptr<RunControl> m_control;
  bool m_running = false;
  bool m_paused = false;
};

}  // namespace ensemble::ui
