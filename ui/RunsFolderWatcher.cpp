// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunsFolderWatcher.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <utility>

#include "ui/RunsModel.h"

namespace ensemble::ui {
namespace {

constexpr int kSettleMs = 500;
constexpr int kPollMs = 2000;

/// The folder itself once it exists; until then the nearest one above it, whose change
/// (the folder made) is the first sign of runs.
QString nearestExisting(const QString& folder) {
  QFileInfo info(QDir::cleanPath(QFileInfo(folder).absoluteFilePath()));
  while (!info.isDir() && !info.isRoot()) info = QFileInfo(info.absolutePath());
  return info.absoluteFilePath();
}

}  // namespace

RunsFolderWatcher::RunsFolderWatcher(const QString& root, QObject* parent) : QObject(parent), m_root(root) {
  m_settle.setSingleShot(true);
  m_settle.setInterval(kSettleMs);
  // Not restarted by each change: a process writing every few milliseconds would hold it off.
  const auto settle = [this] {
    if (!m_settle.isActive()) m_settle.start();
  };
  const auto pathChanged = [this, settle](const QString& path) {
    m_changes.paths.insert(path);
    settle();
  };
  connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, pathChanged);
  connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, pathChanged);
  connect(&m_settle, &QTimer::timeout, this, &RunsFolderWatcher::changed);
  m_poll.setInterval(kPollMs);
  connect(&m_poll, &QTimer::timeout, this, [this, settle] {
    m_changes.poll = true;
    settle();
  });
}

RunsFolderChanges RunsFolderWatcher::takeChanges() { return std::exchange(m_changes, {}); }

void RunsFolderWatcher::watch(const RunsModel& runs) {
  QSet<QString> wanted{nearestExisting(m_root)};
  QSet<QString> runFolders;
  bool anyElsewhere = false;
  for (int row = 0; row < runs.rowCount(); ++row) {
    const RunRecord& run = runs.record(row);
    const QString folder = QFileInfo(run.directory).absoluteFilePath();
    runFolders.insert(folder);
    if (run.training) continue;  // its events say what changes
    anyElsewhere |= run.trainingElsewhere;
    wanted.insert(folder);
    const QString metrics = run.directory + "/metrics.csv";
    if (run.mayStillBeWritten() && QFileInfo::exists(metrics)) wanted.insert(QFileInfo(metrics).absoluteFilePath());
  }
  // Sweep folders: a listed run's folder is none (at 10,000 runs, asking each for a
  // sweep.json took a stat each, every refresh).
  for (const QFileInfo& folder : QDir(m_root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    const QString path = folder.absoluteFilePath();
    if (!runFolders.contains(path) && QFileInfo::exists(path + "/sweep.json")) wanted.insert(path);
  }
  QStringList gone;
  for (const QString& path : m_watcher.directories() + m_watcher.files()) {
    if (!wanted.remove(path)) gone << path;
  }
  if (!gone.isEmpty()) m_watcher.removePaths(gone);
  if (!wanted.isEmpty()) m_watcher.addPaths(QStringList(wanted.begin(), wanted.end()));
  if (anyElsewhere && !m_poll.isActive()) m_poll.start();
  if (!anyElsewhere) m_poll.stop();
}

}  // namespace ensemble::ui
