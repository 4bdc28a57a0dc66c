// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tells the window when the runs folder changes on disk behind its back: a run the CLI, a
// sweep or another window started, trained on, finished, renamed or deleted. The run list
// then refreshes (RunsModel::refresh) instead of showing what was there when it opened.
//
// It watches the runs folder (or, until it exists, the nearest folder above it), each sweep
// folder in it, each run folder, and the metrics.csv of every run that may still be training
// elsewhere, so that such a run's curves grow in the window as its process writes them.
// Changes come in bursts (a step's rows, a checkpoint's files): one `changed` follows them
// within half a second, at most twice a second however fast another process writes, and
// takeChanges() says which paths they were, so the refresh reads only those runs. While a
// run is training elsewhere, `changed` also comes every two seconds, so that a process that
// was killed (and writes nothing more) is seen to have ended.
#include <QFileSystemWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include "ui/RunsFolderChanges.h"

namespace ensemble::ui {

class RunsModel;

class RunsFolderWatcher final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunsFolderWatcher)

 public:
  explicit RunsFolderWatcher(const QString& root, QObject* parent = nullptr);

  /// Watches the root and what `runs` lists now; call again after each refresh (new runs,
  /// files replaced by an atomic write, which ends the watch on the old one).
  void watch(const RunsModel& runs);
  /// What changed since the last call (RunsModel::refresh reads again only what it names).
  RunsFolderChanges takeChanges();

 signals:
  void changed();

 private:
  QString m_root;
  QFileSystemWatcher m_watcher;
  QTimer m_settle;
  /// While a listed run is training elsewhere: its process may end without a write (killed),
  /// which only its lock says.
  QTimer m_poll;
  RunsFolderChanges m_changes;  ///< since the last takeChanges()
};

}  // namespace ensemble::ui
