// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stopwatches for the GUI tests' frame budgets that do not count the time the calling
// thread waited, runnable, for a core. CI runs two tests and a build at once on two cores:
// there a 10 ms timer's ticks came 135 ms apart with the GUI thread idle, and a repaint's
// wall time says more about the neighbours than about our code. Nor the time the machine's
// hypervisor took the thread's core away ("steal" in /proc/stat): with a compile beside the
// tests, this 2-core VM lost a core for about 100 ms at a time, which the guest's scheduler
// counts as neither running nor waiting, and TestMainWindow's 100 ms budget failed at
// 108-115 ms with the GUI thread idle. Working, and blocking in our own code (a lock, a
// read), still count. Qt and Linux only.
#include <sched.h>
#include <unistd.h>

#include <algorithm>

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QList>
#include <QTimer>

namespace testing {

/// How long the calling thread has waited, runnable, for a core (ns: the second field of
/// /proc/thread-self/schedstat), or -1 where the kernel does not say.
inline qint64 runQueueWaitNs() {
  QFile schedstat("/proc/thread-self/schedstat");
  if (!schedstat.open(QIODevice::ReadOnly)) return -1;
  const QList<QByteArray> fields = schedstat.readAll().simplified().split(' ');
  return fields.size() >= 2 ? fields[1].toLongLong() : -1;
}

/// Each CPU's time taken by the hypervisor so far (ms; /proc/stat's "cpuN" lines, eighth
/// value, in clock ticks), by CPU number; empty where the kernel does not say.
inline QList<qint64> stolenMsPerCpu() {
  QList<qint64> stolen;
  QFile stat("/proc/stat");
  if (!stat.open(QIODevice::ReadOnly)) return stolen;
  const qint64 ticksPerSecond = ::sysconf(_SC_CLK_TCK);
  for (QByteArray line = stat.readLine(); !line.isEmpty(); line = stat.readLine()) {
    if (!line.startsWith("cpu") || line.startsWith("cpu ")) continue;  // "cpu " sums them
    const QList<QByteArray> fields = line.simplified().split(' ');
    const int cpu = fields[0].mid(3).toInt();
    if (fields.size() < 9 || ticksPerSecond <= 0) return {};
    if (stolen.size() <= cpu) stolen.resize(cpu + 1);
    stolen[cpu] = fields[8].toLongLong() * 1000 / ticksPerSecond;
  }
  return stolen;
}

/// Wall time since start(), less the calling thread's waits for a core in that time (all
/// of the wall time where the kernel keeps no schedstat) and the time the hypervisor took
/// the core it ran on at the start or at the end (the larger, to 10 ms). Start it and read
/// it on the same thread.
class OwnTimeTimer {
 public:
  void start() {
    m_waitedAtStart = runQueueWaitNs();
    m_stolenAtStart = stolenMsPerCpu();
    m_cpuAtStart = ::sched_getcpu();
    m_wall.start();
  }
  bool isValid() const { return m_wall.isValid(); }
  qint64 wallMs() const { return m_wall.elapsed(); }
  qint64 elapsedMs() const {
    const qint64 wall = m_wall.elapsed();
    const qint64 waited = runQueueWaitNs();
    if (waited < 0 || m_waitedAtStart < 0) return wall;
    return std::max<qint64>(0, wall - (waited - m_waitedAtStart) / 1000000 - stolenMs());
  }

 private:
  qint64 stolenMs() const {
    const QList<qint64> stolen = stolenMsPerCpu();
    const auto stolenFrom = [&](int cpu) {
      return cpu >= 0 && cpu < stolen.size() && cpu < m_stolenAtStart.size() ? stolen[cpu] - m_stolenAtStart[cpu] : 0;
    };
    return std::max(stolenFrom(m_cpuAtStart), stolenFrom(::sched_getcpu()));
  }

  QElapsedTimer m_wall;
  qint64 m_waitedAtStart = -1;
  QList<qint64> m_stolenAtStart;
  int m_cpuAtStart = -1;
};

/// The longest gap between a 10 ms timer's ticks in the calling (GUI) thread from start() to
/// stop(), in own time (OwnTimeTimer) and as a clock sees it. The gap still open at stop()
/// counts too: a job that blocks the event loop to its end leaves no tick after it, and a
/// QSignalSpy's wait returns before the next one.
class TickGapWatch {
 public:
  TickGapWatch() {
    m_ticker.setInterval(10);
    QObject::connect(&m_ticker, &QTimer::timeout, &m_ticker, [this] {
      noteGap();
      m_sinceTick.start();
    });
  }
  void start() {
    m_sinceTick.start();
    m_ticker.start();
  }
  void stop() {
    m_ticker.stop();
    noteGap();
  }
  qint64 worstMs() const { return m_worst; }
  qint64 worstWallMs() const { return m_worstWall; }

 private:
  void noteGap() {
    m_worst = std::max(m_worst, m_sinceTick.elapsedMs());
    m_worstWall = std::max(m_worstWall, m_sinceTick.wallMs());
  }

  QTimer m_ticker;
  OwnTimeTimer m_sinceTick;
  qint64 m_worst = 0;
  qint64 m_worstWall = 0;
};

}  // namespace testing
