// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What RunsFolderWatcher saw change since the run list last refreshed: the watched folders
// and files that changed (as the watcher names them: absolute paths), and whether its poll
// came (a run training elsewhere may have ended without a write; only its lock says so).
// RunsModel::refresh reads again only the runs they name: at 10,000 runs, stamping every
// run's files on every change took most of a refresh (docs/BENCHMARKS.md).
#include <QSet>
#include <QString>

namespace ensemble::ui {

struct RunsFolderChanges {
  QSet<QString> paths;
  bool poll = false;
};

}  // namespace ensemble::ui
