// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunsFolderWatcher.h"

#include <QDir>
#include <QFileInfo>
#include <QSet>

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
  connect(&m_watcher, &QFileSystemWatcher::directoryChanged, this, settle);
  connect(&m_watcher, &QFileSystemWatcher::fileChanged, this, settle);
  connect(&m_settle, &QTimer::timeout, this, &RunsFolderWatcher::changed);
  m_poll.setInterval(kPollMs);
  connect(&m_poll, &QTimer::timeout, this, settle);
}

void RunsFolderWatcher::watch(const RunsModel& runs) {
  QSet<QString> wanted{nearestExisting(m_root)};
  for (const QFileInfo& folder : QDir(m_root).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    if (QFileInfo::exists(folder.filePath() + "/sweep.json")) wanted.insert(folder.absoluteFilePath());
  }
  bool anyElsewhere = false;
  for (int row = 0; row < runs.rowCount(); ++row) {
    const RunRecord& run = runs.record(row);
    if (run.training) continue;  // its events say what changes
    anyElsewhere |= run.trainingElsewhere;
    wanted.insert(QFileInfo(run.directory).absoluteFilePath());
    const QString metrics = run.directory + "/metrics.csv";
    if (run.mayStillBeWritten() && QFileInfo::exists(metrics)) wanted.insert(QFileInfo(metrics).absoluteFilePath());
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
