// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunController.h"

#include <QEventLoop>

#include "core/train/CpuThreads.h"
#include "core/train/RunControl.h"
#include "ui/TrainingWorker.h"

namespace ensemble::ui {

void registerEngineMetaTypes() {
  qRegisterMetaType<ensemble::RunStartedEvent>();
  qRegisterMetaType<ensemble::StepEvent>();
  qRegisterMetaType<QVector<ensemble::StepEvent>>();
  qRegisterMetaType<ensemble::EpochEvent>();
  qRegisterMetaType<ensemble::EvaluationEvent>();
  qRegisterMetaType<ensemble::RunFinishedEvent>();
  qRegisterMetaType<ensemble::ExperimentConfig>();
  qRegisterMetaType<ensemble::EvaluationResult>();
}

void RunController::ThreadStopper::operator()(QThread* thread) const {
  thread->quit();
  thread->wait();
  delete thread;
}

RunController::RunController(QObject* parent) : QObject(parent), m_thread(new QThread) {
  registerEngineMetaTypes();
  m_thread->setObjectName("training");
  m_worker = new TrainingWorker;
  m_worker->moveToThread(m_thread.get());
  connect(m_thread.get(), &QThread::finished, m_worker, &QObject::deleteLater);
  // Training keeps every core busy; at a lower priority it cannot starve the event loop
  // (and the replica threads it starts inherit that). Direct: runs in the new thread.
  connect(m_thread.get(), &QThread::started, m_thread.get(), [] { runAtBackgroundPriority(); },
          Qt::DirectConnection);
  connect(m_worker, &TrainingWorker::runStarted, this, &RunController::runStarted);
  connect(m_worker, &TrainingWorker::stepsReady, this, &RunController::stepsReady);
  connect(m_worker, &TrainingWorker::epochFinished, this, &RunController::epochFinished);
  connect(m_worker, &TrainingWorker::evaluated, this, &RunController::evaluated);
  connect(m_worker, &TrainingWorker::pausedChanged, this, [this](bool paused) {
    m_paused = paused;
    emit pausedChanged(paused);
  });
  connect(m_worker, &TrainingWorker::runFinished, this, [this](const RunFinishedEvent& event) {
    m_running = false;
    m_paused = false;
    emit runFinished(event);
  });
  connect(m_worker, &TrainingWorker::evaluationFinished, this,
          [this](const QString& directory, const EvaluationResult& result, const QString& error) {
            m_running = false;
            emit evaluationFinished(directory, result, error);
          });
  m_thread->start();
}

RunController::~RunController() {
  if (m_control) m_control->requestStop();  // the run checkpoints and returns within a step
  m_thread.reset();                         // quits and waits
}

bool RunController::begin() {
  if (m_running) return false;
  m_running = true;
  m_paused = false;
  m_control = std::make_shared<RunControl>();
  return true;
}

void RunController::start(const ExperimentConfig& config, const QString& runDirectory) {
  if (!begin()) return;
  TrainingWorker* worker = m_worker;
  auto control = m_control;
  QMetaObject::invokeMethod(worker, [=] { worker->startRun(config, runDirectory, control); },
                            Qt::QueuedConnection);
}

void RunController::resume(const QString& runDirectory) {
  if (!begin()) return;
  TrainingWorker* worker = m_worker;
  auto control = m_control;
  QMetaObject::invokeMethod(worker, [=] { worker->resumeRun(runDirectory, control); },
                            Qt::QueuedConnection);
}

void RunController::evaluate(const QString& runDirectory, const QString& dataset) {
  if (!begin()) return;
  TrainingWorker* worker = m_worker;
  QMetaObject::invokeMethod(worker, [=] { worker->evaluateRun(runDirectory, dataset); },
                            Qt::QueuedConnection);
}

void RunController::pause() {
  if (m_running && m_control) m_control->pause();
}

void RunController::unpause() {
  if (m_control) m_control->unpause();
}

bool RunController::isStopping() const { return m_running && m_control && m_control->stopRequested(); }

void RunController::stop() {
  if (m_running && m_control) m_control->requestStop();
}

void RunController::stopAndWait() {
  if (!m_running) return;
  QEventLoop loop;
  connect(this, &RunController::runFinished, &loop, &QEventLoop::quit);
  stop();
  loop.exec();
}

}  // namespace ensemble::ui
