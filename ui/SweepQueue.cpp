// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SweepQueue.h"

#include <QFileInfo>

#include "core/common/ErrorMessage.h"
#include "core/io/CheckpointPresence.h"
#include "ui/RunController.h"

namespace ensemble::ui {

SweepQueue::SweepQueue(RunController& controller, QObject* parent) : QObject(parent), m_controller(controller) {
  connect(&m_controller, &RunController::runFinished, this, &SweepQueue::onRunFinished);
  // A run or an evaluation the person started kept the controller busy: go on after it.
  connect(&m_controller, &RunController::evaluationFinished, this,
          [this] { QMetaObject::invokeMethod(this, &SweepQueue::startNext, Qt::QueuedConnection); });
}

void SweepQueue::start(const QString& folder, const Sweep& sweep) {
  writeSweep(folder.toStdString(), sweep);
  m_lock = lockSweep(folder.toStdString());
  m_folder = folder;
  m_sweep = sweep;
  m_accuracy.clear();
  m_paused = false;
  m_running = -1;
  emit changed();
  startNext();
}

void SweepQueue::open(const QString& folder) {
  // The lock first, as `sweep --resume` takes it: sweep.json is read as its last runner left
  // it. The sweep this window holds already (opened again) keeps its lock.
  const bool held = m_lock && QFileInfo(folder).canonicalFilePath() == QFileInfo(m_folder).canonicalFilePath();
  std::optional<RunWriterLock> lock = held ? std::move(m_lock) : lockSweep(folder.toStdString());
  Sweep sweep;
  try {
    sweep = readSweep(folder.toStdString());
  } catch (...) {
    if (held) m_lock = std::move(lock);
    throw;
  }
  m_lock = std::move(lock);
  m_sweep = std::move(sweep);
  retryFailedJobs(m_sweep);  // as `sweep --resume` does; the jobs table shows them pending again
  m_folder = folder;
  m_accuracy.clear();
  for (const SweepJob& job : m_sweep.jobs) {  // once, here; later jobs report through their events
    if (job.status != JobStatus::Completed) continue;
    if (const auto accuracy = jobTestAccuracy(folder.toStdString(), job)) m_accuracy.insert(QString::fromStdString(job.name), *accuracy);
  }
  m_paused = false;
  m_running = -1;
  releaseLockIfDone();
  emit changed();
  startNext();
}

void SweepQueue::pause() {
  m_paused = true;
  emit changed();
}

void SweepQueue::resume() {
  m_paused = false;
  emit changed();
  startNext();
}

void SweepQueue::cancel() {
  m_paused = true;
  if (m_running >= 0) m_controller.stop();  // runFinished (stopped) follows
  emit changed();
}

bool SweepQueue::isDone() const {
  for (const SweepJob& job : m_sweep.jobs) {
    if (job.status != JobStatus::Completed && job.status != JobStatus::Failed) return false;
  }
  return true;
}

bool SweepQueue::moveJob(int index, int delta) {
  const int other = index + delta;
  if (index < 0 || other < 0 || index >= int(m_sweep.jobs.size()) || other >= int(m_sweep.jobs.size())) return false;
  if (m_sweep.jobs[std::size_t(index)].status != JobStatus::Pending ||
      m_sweep.jobs[std::size_t(other)].status != JobStatus::Pending) {
    return false;
  }
  std::swap(m_sweep.jobs[std::size_t(index)], m_sweep.jobs[std::size_t(other)]);
  save();
  emit changed();
  return true;
}

std::optional<double> SweepQueue::testAccuracy(int index) const {
  if (index < 0 || index >= int(m_sweep.jobs.size())) return std::nullopt;
  const auto found = m_accuracy.constFind(QString::fromStdString(m_sweep.jobs[std::size_t(index)].name));
  return found == m_accuracy.constEnd() ? std::nullopt : std::optional<double>(*found);
}

void SweepQueue::releaseLockIfDone() {
  if (isDone()) m_lock.reset();
}

QString SweepQueue::jobFolder(int index) const {
  return m_folder + "/" + QString::fromStdString(m_sweep.jobs[std::size_t(index)].name);
}

void SweepQueue::save() {
  try {
    writeSweep(m_folder.toStdString(), m_sweep);
  } catch (...) {
    emit failed(QString::fromStdString(describeCurrentException()));
  }
}

void SweepQueue::startNext() {
  if (m_paused || m_running >= 0 || m_controller.isRunning() || !hasSweep()) return;
  for (int j = 0; j < int(m_sweep.jobs.size()); ++j) {
    SweepJob& job = m_sweep.jobs[std::size_t(j)];
    if (job.status == JobStatus::Completed || job.status == JobStatus::Failed) continue;
    const QString folder = jobFolder(j);
    // The engine's rule, as `sweep --resume` has it: a job killed before it wrote `latest` has
    // a whole step-* checkpoint, which clearing the job for a fresh start would have deleted.
    const bool checkpointed = holdsACheckpoint((folder + "/checkpoints").toStdString());
    m_running = j;
    job.status = JobStatus::Running;
    job.message.clear();
    save();
    emit changed();
    if (checkpointed) {
      m_controller.resume(folder);  // an interrupted job goes on from its checkpoint
    } else {
      try {
        clearJobWithoutCheckpoint(folder.toStdString());  // refused while another process trains it
        m_controller.start(m_sweep.configOf(job), folder);
      } catch (...) {  // held elsewhere, or its settings no longer read (sweep.json edited by hand)
        RunFinishedEvent refused;
        refused.status = RunStatus::Failed;
        refused.runDirectory = folder.toStdString();
        refused.message = describeCurrentException();
        onRunFinished(refused);
      }
    }
    return;
  }
}

void SweepQueue::onRunFinished(const RunFinishedEvent& event) {
  if (m_running < 0 || QFileInfo(QString::fromStdString(event.runDirectory)) != QFileInfo(jobFolder(m_running))) {
    // Not ours: a run the person started or resumed by hand; the sweep may go on after it.
    QMetaObject::invokeMethod(this, &SweepQueue::startNext, Qt::QueuedConnection);
    return;
  }
  SweepJob& job = m_sweep.jobs[std::size_t(m_running)];
  job.status = event.status == RunStatus::Completed ? JobStatus::Completed
               : event.status == RunStatus::Stopped ? JobStatus::Stopped
                                                    : JobStatus::Failed;
  job.message = event.message;
  if (job.status == JobStatus::Completed && event.summary && event.summary->evaluation) {
    m_accuracy.insert(QString::fromStdString(job.name), event.summary->evaluation->ensemble.accuracy);
  }
  m_running = -1;
  save();
  releaseLockIfDone();
  emit changed();
  // The controller emits runFinished before it is free again: start the next job after.
  QMetaObject::invokeMethod(this, &SweepQueue::startNext, Qt::QueuedConnection);
}

}  // namespace ensemble::ui
