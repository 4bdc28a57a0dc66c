// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A process's resident memory, threads and open file descriptors, read from /proc as a
// user's monitoring would (the long-life tests watch them for leaks). Qt only.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QString>
#include <QStringList>
#include <algorithm>
#include <vector>

namespace testing {

struct ProcessUsage {
  qint64 rssKiB = 0;
  int threads = 0;
  int fds = 0;            ///< open descriptors, less those of writes in progress
  QStringList openFiles;  ///< what every open descriptor points at, for a failure to name
};

/// Whether `target` is held open only for the moments of one write, by design: a file the
/// project stages (AtomicFile's ".tmp", a checkpoint's ".incomplete-" folder, an export's
/// ".incomplete") or a folder, opened to fsync it after a rename. A sample that lands
/// inside a write (each epoch's checkpoint) must not read as a leak.
inline bool isStagedWrite(const QString& target) {
  return target.endsWith(".tmp") || target.contains("/.incomplete-") || target.endsWith(".incomplete") ||
         QFileInfo(target).isDir();
}

/// `pid`'s resident set, thread count and open descriptors ("self" for this process), or
/// zeros once it has gone.
inline ProcessUsage usageOf(const QString& pid) {
  ProcessUsage usage;
  QFile status(QString("/proc/%1/status").arg(pid));
  if (!status.open(QIODevice::ReadOnly)) return usage;
  for (const QByteArray& line : status.readAll().split('\n')) {
    const QList<QByteArray> fields = line.simplified().split(' ');
    if (fields.size() < 2) continue;
    if (fields[0] == "VmRSS:") usage.rssKiB = fields[1].toLongLong();
    if (fields[0] == "Threads:") usage.threads = fields[1].toInt();
  }
  const QDir fdFolder(QString("/proc/%1/fd").arg(pid));
  for (const QString& fd : fdFolder.entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System)) {
    const QString target = QFileInfo(fdFolder.filePath(fd)).symLinkTarget();
    if (target.isEmpty()) continue;  // closed between the listing and the look
    usage.openFiles << fd + " -> " + target;
    if (!isStagedWrite(target)) ++usage.fds;
  }
  return usage;
}

/// The median of `values` (not empty). Resident memory is judged by medians of several
/// samples: one sample swings by a few percent as the allocator's caches fill and return.
inline qint64 medianOf(std::vector<qint64> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace testing
