// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A stopwatch for the GUI tests' frame budgets that does not count the time the calling
// thread waited, runnable, for a core. CI runs two tests and a build at once on two cores:
// there a 10 ms timer's ticks came 135 ms apart with the GUI thread idle, and a repaint's
// wall time says more about the neighbours than about our code. Working, and blocking in
// our own code (a lock, a read), still count. Qt only.
#include <algorithm>

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QList>

namespace testing {

/// How long the calling thread has waited, runnable, for a core (ns: the second field of
/// /proc/thread-self/schedstat), or -1 where the kernel does not say.
inline qint64 runQueueWaitNs() {
  QFile schedstat("/proc/thread-self/schedstat");
  if (!schedstat.open(QIODevice::ReadOnly)) return -1;
  const QList<QByteArray> fields = schedstat.readAll().simplified().split(' ');
  return fields.size() >= 2 ? fields[1].toLongLong() : -1;
}

/// Wall time since start(), less the calling thread's waits for a core in that
/// time (all of the wall time where the kernel keeps no schedstat). Start it and read it on
/// the same thread.
class OwnTimeTimer {
 public:
  void start() {
    m_waitedAtStart = runQueueWaitNs();
    m_wall.start();
  }
  bool isValid() const { return m_wall.isValid(); }
  qint64 wallMs() const { return m_wall.elapsed(); }
  qint64 elapsedMs() const {
    const qint64 wall = m_wall.elapsed();
    const qint64 waited = runQueueWaitNs();
    if (waited < 0 || m_waitedAtStart < 0) return wall;
    return std::max<qint64>(0, wall - (waited - m_waitedAtStart) / 1000000);
  }

 private:
  QElapsedTimer m_wall;
  qint64 m_waitedAtStart = -1;
};

}  // namespace testing
