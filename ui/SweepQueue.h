// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's sweep: the jobs of a Sweep (core/runs/Sweep.h) trained one after another
// through the RunController, the same folders and sweep.json as `ensemble-lab-cli sweep`.
// A failed job is recorded and the next starts. Paused, the running job finishes and no new
// one starts; cancelled, the running job also stops (with a checkpoint). Pending jobs can be
// reordered. An interrupted sweep (the window closed, the machine went down) is opened
// again and resumes: finished jobs stay, the interrupted one continues from its checkpoint.
// While it has jobs left the window holds the sweep's lock (lockSweep), as the CLI's `sweep`
// does: a `sweep --resume` of it, or another window's, is refused rather than run beside it.
#include <QHash>
#include <QObject>
#include <QString>
#include <optional>

#include "core/io/RunWriterLock.h"
#include "core/runs/Sweep.h"
#include "ui/EngineMetaTypes.h"

namespace ensemble::ui {

class RunController;

class SweepQueue final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(SweepQueue)

 public:
  explicit SweepQueue(RunController& controller, QObject* parent = nullptr);

  /// Writes `sweep` to `folder`/sweep.json and starts its first job (when the controller is
  /// free). Throws IoError when the folder cannot be written, ConfigError when another
  /// process took its lock first.
  void start(const QString& folder, const Sweep& sweep);
  /// Reads the sweep in `folder` and goes on with its unfinished jobs. Throws ConfigError,
  /// keeping the sweep it had, when `folder` holds no sweep or another process runs it.
  void open(const QString& folder);

  /// Lets the running job finish, then starts no other until resumed.
  void pause();
  /// Starts the next unfinished job (after pause, cancel, or a window that was busy).
  void resume();
  /// Stops the running job at its next step (it checkpoints; state "stopped") and pauses.
  void cancel();
  /// Moves job `index` one place up (delta -1) or down (+1) among the pending jobs; false
  /// when it or its neighbour has begun.
  bool moveJob(int index, int delta);

  const Sweep& sweep() const { return m_sweep; }
  /// Job `index`'s test accuracy once it has completed: from its run's last event, or (for
  /// a sweep opened from disk) read once when it was opened.
  std::optional<double> testAccuracy(int index) const;
  const QString& folder() const { return m_folder; }
  bool hasSweep() const { return !m_folder.isEmpty(); }
  bool isPaused() const { return m_paused; }
  /// The job training now, or -1.
  int runningJob() const { return m_running; }
  /// True when no job is pending, running or stopped.
  bool isDone() const;

 signals:
  /// A job's state changed, or the order: the panel redraws.
  void changed();
  /// Something could not be written or read; the message says what.
  void failed(const QString& message);

 private:
  void onRunFinished(const ensemble::RunFinishedEvent& event);
  void startNext();
  void save();
  QString jobFolder(int index) const;
  /// Lets the sweep's lock go once no job is left: a finished sweep blocks no one.
  void releaseLockIfDone();

  RunController& m_controller;
  Sweep m_sweep;
  std::optional<RunWriterLock> m_lock;  ///< held from start/open while jobs are left
  QHash<QString, double> m_accuracy;  ///< by job name: jobs move, names stay
  QString m_folder;
  int m_running = -1;
  bool m_paused = false;
};

}  // namespace ensemble::ui
