// SPDX-License-Identifier: GPL-3.0-or-later
// Kill anywhere, resume exactly: a real CLI ensemble run is SIGKILLed again and again — at
// random moments and the instant a checkpoint is being written — and resumed each time.
// After every kill each checkpoint on disk must load; at the end the weights and
// metrics.csv must equal an uninterrupted run's, bit for bit and row for row.
// ENSEMBLELAB_KILLS (default 6) sets how many kills (a longer run for more); the random seed
// is printed. A kill aimed at a checkpoint write waits for it with inotify, and every kill
// first freezes the process (SIGSTOP), so the test knows what the SIGKILL interrupts. Two more
// cases stop the process at the crash seam (ENSEMBLELAB_CRASH_AT) inside windows a kill
// from outside rarely hits: halfway through deleting or replacing a checkpoint.
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include "core/io/Checkpoint.h"
#include "tests/TestSupport.h"

namespace {

/// The run every case kills: `epochs` of 16 steps, a checkpoint every 2.
QStringList runOptions(int epochs) {
  return {"--dataset", "synthetic", "--devices", "cpu*3", "--epochs", QString::number(epochs), "--seed", "7",
          "--checkpoint-every", "2", "--log-every", "1", "--eval-every", "3", "--train-limit", "2048"};
}
const QStringList kRun = runOptions(3);

/// Every step-* folder (complete checkpoints) must read back whole.
void expectEveryCheckpointLoads(const QString& run) {
  const QDir checkpoints(run + "/checkpoints");
  for (const QString& folder : checkpoints.entryList({"step-*"}, QDir::Dirs)) {
    try {
      QCOMPARE(ensemble::readCheckpoint(checkpoints.filePath(folder).toStdString()).weights.size(), std::size_t(3));
    } catch (const std::exception& error) {
      QFAIL(qPrintable(folder + ": " + error.what()));
    }
  }
  if (checkpoints.exists("latest")) ensemble::readCheckpoint(ensemble::latestCheckpoint(checkpoints.path().toStdString()));
}

bool checkpointBeingWritten(const QString& run) {
  return !QDir(run + "/checkpoints").entryList({".incomplete-*"}, QDir::Dirs | QDir::Hidden).isEmpty();
}

/// Whether `cli` has not exited yet: QProcess learns of an exit only when asked.
bool stillRunning(QProcess& cli) { return cli.state() == QProcess::Running && !cli.waitForFinished(0); }

/// Blocks until `cli` begins a checkpoint write of its own (a new .incomplete-* folder), or
/// `timeoutMs` passes, or it exits. inotify wakes us the moment the folder is made: a write
/// on a fast disk lasts a few milliseconds, which sleeping polls under a loaded CI machine
/// missed three times in a row.
void waitForCheckpointWrite(QProcess& cli, const QString& run, int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  const auto goingOn = [&] { return stillRunning(cli) && clock.elapsed() < timeoutMs; };
  // A resumed run first clears what an earlier kill left mid-write; a fresh one makes the folder.
  while (goingOn() && (checkpointBeingWritten(run) || !QFileInfo(run + "/checkpoints").isDir())) QThread::usleep(500);
  const int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  QVERIFY(watch >= 0);
  QVERIFY(inotify_add_watch(watch, QFile::encodeName(run + "/checkpoints").constData(), IN_CREATE) >= 0);
  bool begun = checkpointBeingWritten(run);  // it may have begun before the watch did
  alignas(inotify_event) char events[4096];
  while (!begun && goingOn()) {
    pollfd ready{watch, POLLIN, 0};
    if (::poll(&ready, 1, 50) <= 0) continue;
    const ssize_t length = ::read(watch, events, sizeof events);
    for (ssize_t at = 0; at < length;) {
      const auto* event = reinterpret_cast<const inotify_event*>(events + at);
      begun = begun || (event->len > 0 && QByteArray(event->name).startsWith(".incomplete-"));
      at += ssize_t(sizeof(inotify_event) + event->len);
    }
  }
  ::close(watch);
}

/// SIGSTOPs `pid` and waits until every thread of it is stopped, so that what the test sees
/// on disk next is exactly what the SIGKILL after it leaves. False when it had exited.
bool freeze(pid_t pid) {
  ::kill(pid, SIGSTOP);
  const QDir tasks(QString("/proc/%1/task").arg(pid));
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < 5000) {
    bool allStopped = true;
    for (const QString& task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
      QFile stat(tasks.filePath(task + "/stat"));
      if (!stat.open(QIODevice::ReadOnly)) continue;  // a thread that just ended
      const QByteArray line = stat.readAll();
      const int at = line.lastIndexOf(')') + 2;  // "tid (name) S ..."
      const char state = at >= 2 && at < line.size() ? line[at] : '?';
      if (state == 'Z' || state == 'X') return false;  // it exited before the signal
      allStopped = allStopped && (state == 'T' || state == 't');
    }
    if (allStopped) return true;
    QThread::usleep(200);
  }
  return true;
}

/// The hidden folders a kill left: staging (.incomplete-*) and half-deleted (.removing-*).
QStringList leftovers(const QString& run) {
  return QDir(run + "/checkpoints").entryList({".incomplete-*", ".removing-*"}, QDir::Dirs | QDir::Hidden);
}

/// Runs the CLI with ENSEMBLELAB_CRASH_AT=`crashAt` (the process kills itself there).
void runUntilCrash(const QStringList& arguments, const QString& crashAt) {
  QProcess cli;
  QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
  environment.insert("ENSEMBLELAB_CRASH_AT", crashAt);
  cli.setProcessEnvironment(environment);
  cli.start(ENSEMBLELAB_CLI_PATH, arguments);
  QVERIFY(cli.waitForFinished(300000));
  QCOMPARE(cli.exitStatus(), QProcess::CrashExit);  // SIGKILLed at the crash point
}

}  // namespace

class TestKillAnywhere final : public QObject {
  Q_OBJECT

  QTemporaryDir m_referenceDir;
  QString m_reference;  ///< kRun, never interrupted
  qint64 m_referenceMs = 0;  ///< how long it took, start-up included

  /// Trains `options` uninterrupted into `out`; returns how long it took in ms.
  static qint64 trainUninterrupted(const QStringList& options, const QString& out) {
    QProcess uninterrupted;
    QElapsedTimer clock;
    clock.start();
    uninterrupted.start(ENSEMBLELAB_CLI_PATH, QStringList{"train"} + options + QStringList{"--out", out});
    const bool finished = uninterrupted.waitForFinished(600000);
    return finished && uninterrupted.exitCode() == 0 ? clock.elapsed() : -1;
  }

  /// The finished `run` equals the uninterrupted `reference`: weights bit for bit, metrics
  /// row for row.
  void expectSameAsUninterrupted(const QString& run, const QString& reference) {
    QVERIFY(testing::sameLatestWeights(reference.toStdString(), run.toStdString()));
    const QStringList rows = testing::readLines(run + "/metrics.csv");
    QCOMPARE(rows, testing::readLines(reference + "/metrics.csv"));
    QCOMPARE(QSet<QString>(rows.begin(), rows.end()).size(), rows.size());  // no row twice
  }

  static void resumeToTheEnd(const QString& run) {
    QProcess cli;
    cli.start(ENSEMBLELAB_CLI_PATH, QStringList{"resume", "--run", run});
    QVERIFY(cli.waitForFinished(300000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
  }

 private slots:
  void initTestCase() {
    m_reference = m_referenceDir.filePath("reference");
    m_referenceMs = trainUninterrupted(kRun, m_reference);
    QVERIFY(m_referenceMs > 0);
  }

  void killedWhileDeletingAnOldCheckpointLosesNothing() {
    // The run keeps two checkpoints: at step 6 it deletes step 2's. Killed after the first
    // file of it is gone, every step-* folder must still load whole.
    QTemporaryDir dir;
    const QString run = dir.filePath("run");
    runUntilCrash(QStringList{"train"} + kRun + QStringList{"--out", run}, "checkpoint-removal:1");
    expectEveryCheckpointLoads(run);
    QCOMPARE(leftovers(run), QStringList{".removing-step-000000002"});  // it died mid-delete
    resumeToTheEnd(run);
    QVERIFY2(leftovers(run).isEmpty(), qPrintable(leftovers(run).join(", ")));
    expectSameAsUninterrupted(run, m_reference);
  }

  void killedBeforeItsFirstCheckpointWasNamedLatestLosesNothing() {
    // Killed after step 2's checkpoint got its name but before `latest` was first written:
    // the checkpoint is whole, so resume goes on from it rather than from step 0.
    QTemporaryDir dir;
    const QString run = dir.filePath("run");
    runUntilCrash(QStringList{"train"} + kRun + QStringList{"--out", run}, "checkpoint-published:1");
    QVERIFY(!QFileInfo::exists(run + "/checkpoints/latest"));
    QCOMPARE(ensemble::latestCheckpoint((run + "/checkpoints").toStdString()),
             (run + "/checkpoints/step-000000002").toStdString());
    QProcess cli;
    cli.start(ENSEMBLELAB_CLI_PATH, QStringList{"resume", "--run", run});
    QVERIFY(cli.waitForFinished(300000));
    const QString said = cli.readAllStandardError();
    QVERIFY2(cli.exitCode() == 0 && said.contains("from step 2") && !said.contains("from step 0"), qPrintable(said));
    expectSameAsUninterrupted(run, m_reference);
  }

  void killedWhileReplacingACheckpointLosesNothing() {
    // Killed after step 4's checkpoint got its name but before `latest` moved to it; the
    // resumed run writes step 4 again over it and is killed while deleting the old one.
    QTemporaryDir dir;
    const QString run = dir.filePath("run");
    runUntilCrash(QStringList{"train"} + kRun + QStringList{"--out", run}, "checkpoint-published:2");
    QCOMPARE(ensemble::latestCheckpoint((run + "/checkpoints").toStdString()),
             (run + "/checkpoints/step-000000002").toStdString());
    QVERIFY(QFileInfo::exists(run + "/checkpoints/step-000000004/manifest.json"));
    runUntilCrash(QStringList{"resume", "--run", run}, "checkpoint-removal:1");
    expectEveryCheckpointLoads(run);
    QVERIFY(!leftovers(run).isEmpty());  // it died mid-delete
    resumeToTheEnd(run);
    QVERIFY2(leftovers(run).isEmpty(), qPrintable(leftovers(run).join(", ")));
    expectSameAsUninterrupted(run, m_reference);
  }

  void resumesBitForBitAfterEveryKill() {
    QTemporaryDir dir;
    const QString run = dir.filePath("killed");

    const int kills = qEnvironmentVariableIsSet("ENSEMBLELAB_KILLS") ? qEnvironmentVariableIntValue("ENSEMBLELAB_KILLS") : 6;
    // A longer campaign trains longer (3 epochs per 6 kills), so its kills all land before the end.
    const int epochs = 3 * std::max(1, kills / 6);
    const QStringList options = runOptions(epochs);
    QString reference = m_reference;
    qint64 referenceMs = m_referenceMs;
    if (epochs != 3) {
      reference = dir.filePath("reference");
      referenceMs = trainUninterrupted(options, reference);
      QVERIFY(referenceMs > 0);
    }
    const quint32 seed = QRandomGenerator::system()->generate();
    qInfo("kill-anywhere: %d kills, seed %u, an uninterrupted run of %d epochs %lld ms", kills, seed, epochs, referenceMs);
    QRandomGenerator random(seed);
    int killed = 0, killedInCheckpoint = 0, triedInCheckpoint = 0, finishedRuns = 0;
    // Until one kill has landed inside a checkpoint write, up to ten more are tried for it.
    const auto wantsAKill = [&] { return killed < kills || (killedInCheckpoint == 0 && killed < kills + 10); };
    for (int round = 0; round < 1000 && finishedRuns == 0; ++round) {
      QProcess cli;
      // Killed before it wrote config.json, a run is not there yet: start it again.
      const bool fresh = !QFile::exists(run + "/config.json");
      cli.start(ENSEMBLELAB_CLI_PATH,
                fresh ? QStringList{"train"} + options + QStringList{"--out", run} : QStringList{"resume", "--run", run});
      QVERIFY(cli.waitForStarted());
      if (wantsAKill()) {
        // Odd kills (and the extra ones) wait for a checkpoint write; even ones pick a moment
        // between a tenth and a half of what 3 epochs take uninterrupted.
        const bool inCheckpoint = killed % 2 == 1 || killed >= kills;
        if (inCheckpoint) {
          waitForCheckpointWrite(cli, run, 20000);
        } else {
          const qint64 span = referenceMs * 3 / epochs;
          const int delayMs = int(span / 10 + random.bounded(quint32(span * 2 / 5 + 1)));
          QElapsedTimer clock;
          clock.start();
          while (stillRunning(cli) && clock.elapsed() < delayMs) QThread::msleep(2);
        }
        if (stillRunning(cli) && freeze(pid_t(cli.processId()))) {
          const bool duringWrite = checkpointBeingWritten(run);
          ::kill(pid_t(cli.processId()), SIGKILL);
          QVERIFY(cli.waitForFinished(10000));
          ++killed;
          triedInCheckpoint += inCheckpoint ? 1 : 0;
          killedInCheckpoint += duringWrite && inCheckpoint ? 1 : 0;
          expectEveryCheckpointLoads(run);
          continue;
        }
      }
      QVERIFY(!stillRunning(cli) || cli.waitForFinished(300000));  // stillRunning may have seen it end
      QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
      ++finishedRuns;
    }
    qInfo("kill-anywhere: %d kills, %d of %d aimed at a checkpoint write landed in one", killed, killedInCheckpoint,
          triedInCheckpoint);
    QVERIFY(killed >= kills / 2);
    QVERIFY(killedInCheckpoint >= 1);
    // The finished run holds only whole checkpoints.
    QVERIFY2(leftovers(run).isEmpty(), qPrintable(leftovers(run).join(", ")));
    expectSameAsUninterrupted(run, reference);
  }
};

QTEST_APPLESS_MAIN(TestKillAnywhere)
#include "TestKillAnywhere.moc"
