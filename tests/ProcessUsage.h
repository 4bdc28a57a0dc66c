// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A process's resident memory, threads and open file descriptors, read from /proc as a
// user's monitoring would (the long-life tests watch them for leaks). Qt only.
#include <QDir>
#include <QFile>
#include <QList>
#include <QString>

namespace testing {

struct ProcessUsage {
  qint64 rssKiB = 0;
  int threads = 0;
  int fds = 0;
};

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
  usage.fds = int(QDir(QString("/proc/%1/fd").arg(pid)).entryList(QDir::NoDotAndDotDot | QDir::AllEntries | QDir::System).size());
  return usage;
}

}  // namespace testing
