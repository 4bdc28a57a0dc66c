// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stopwatches for the GUI tests' frame budgets that do not count the time the calling
// thread waited, runnable, for a core. CI runs two tests and a build at once on two cores:
// there a 10 ms timer's ticks came 135 ms apart with the GUI thread idle, and a repaint's
// wall time says more about the neighbours than about our code. Working, and blocking in
// our own code (a lock, a read), still count. Qt only.
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
