// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/TrainingWorker.h"

#include "core/common/ErrorMessage.h"
#include "core/train/RunControl.h"
#include "core/train/RunAnalysis.h"
#include "core/train/Trainer.h"

namespace ensemble::ui {
namespace {
constexpr qint64 kFlushIntervalMs = 100;
}

void TrainingWorker::startRun(const ExperimentConfig& config, const QString& runDirectory,
                              std::shared_ptr<RunControl> control) {
  execute(runDirectory, [&] { return Trainer::create(config, runDirectory.toStdString()); }, control);
}

void TrainingWorker::resumeRun(const QString& runDirectory, std::shared_ptr<RunControl> control) {
  execute(runDirectory, [&] { return Trainer::open(runDirectory.toStdString()); }, control);
}

void TrainingWorker::evaluateRun(const QString& runDirectory, const QString& dataset) {
  try {
    const auto run = RunAnalysis::open(runDirectory.toStdString(), EvaluationData{dataset.toStdString(), std::nullopt});
    emit evaluationFinished(runDirectory, run->evaluate(), {});
  } catch (...) {
    emit evaluationFinished(runDirectory, {}, QString::fromStdString(describeCurrentException()));
  }
}

void TrainingWorker::execute(const QString& runDirectory,
                             const std::function<std::unique_ptr<Trainer>()>& make,
                             const std::shared_ptr<RunControl>& control) {
  m_pending.clear();
  m_sinceFlush.start();
  RunFinishedEvent failed;
  failed.status = RunStatus::Failed;
  failed.runDirectory = runDirectory.toStdString();
  try {
    std::unique_ptr<Trainer> trainer = make();
    // Its end reaches the window through onRunFinished, so the returned event is not needed here.
    static_cast<void>(trainer->run(this, control.get()));
    return;
  } catch (...) {
    failed.message = describeCurrentException();
  }
  emit runFinished(failed);  // the run could not start: bad setup, data or devices
}

void TrainingWorker::flushSteps() {
  if (m_pending.isEmpty()) return;
  emit stepsReady(m_pending);
  m_pending.clear();
  m_sinceFlush.restart();
}

void TrainingWorker::onRunStarted(const RunStartedEvent& event) { emit runStarted(event); }

void TrainingWorker::onStep(const StepEvent& event) {
  // Keep every logged step (they carry curve points) but only the newest progress-only one.
  if (!m_pending.isEmpty() && !m_pending.back().logged) m_pending.back() = event;
  else m_pending.push_back(event);
  if (m_sinceFlush.elapsed() >= kFlushIntervalMs) flushSteps();
}

void TrainingWorker::onEpoch(const EpochEvent& event) {
  flushSteps();
  emit epochFinished(event);
}

void TrainingWorker::onEvaluation(const EvaluationEvent& event) {
  flushSteps();  // the steps before it reach the curves first
  emit evaluated(event);
}

void TrainingWorker::onCheckpoint(const CheckpointEvent& event) {
  emit checkpointWritten(QString::fromStdString(event.path));
}

void TrainingWorker::onPaused(bool paused) {
  flushSteps();
  emit pausedChanged(paused);
}

void TrainingWorker::onRunFinished(const RunFinishedEvent& event) {
  flushSteps();
  emit runFinished(event);
}

}  // namespace ensemble::ui
