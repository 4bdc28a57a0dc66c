// SPDX-License-Identifier: GPL-3.0-or-later
// Kill anywhere, resume exactly: a real CLI ensemble run is SIGKILLed again and again — at
// random moments and the instant a checkpoint is being written — and resumed each time.
// After every kill each checkpoint on disk must load; at the end the weights and
// metrics.csv must equal an uninterrupted run's, bit for bit and row for row.
// ENSEMBLELAB_KILLS (default 6) sets how many kills; the random seed is printed. Two more
// cases stop the process at the crash seam (ENSEMBLELAB_CRASH_AT) inside windows a kill
// from outside rarely hits: halfway through deleting or replacing a checkpoint.
#include <signal.h>

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include "core/io/Checkpoint.h"
#include "tests/TestSupport.h"

namespace {

const QStringList kRun{"--dataset", "synthetic", "--devices", "cpu*3", "--epochs", "3", "--seed", "7",
                       "--checkpoint-every", "2", "--log-every", "1", "--eval-every", "3", "--train-limit", "1024"};

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
  QString m_reference;  ///< the same run, never interrupted

  /// The finished `run` equals the uninterrupted one: weights bit for bit, metrics row for row.
  void expectSameAsUninterrupted(const QString& run) {
    QVERIFY(testing::sameLatestWeights(m_reference.toStdString(), run.toStdString()));
    const QStringList rows = testing::readLines(run + "/metrics.csv");
    QCOMPARE(rows, testing::readLines(m_reference + "/metrics.csv"));
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
    QProcess uninterrupted;
    uninterrupted.start(ENSEMBLELAB_CLI_PATH, QStringList{"train"} + kRun + QStringList{"--out", m_reference});
    QVERIFY(uninterrupted.waitForFinished(300000));
    QCOMPARE(uninterrupted.exitCode(), 0);
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
    expectSameAsUninterrupted(run);
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
    expectSameAsUninterrupted(run);
  }

  void resumesBitForBitAfterEveryKill() {
    QTemporaryDir dir;
    const QString run = dir.filePath("killed");

    const int kills = qEnvironmentVariableIsSet("ENSEMBLELAB_KILLS") ? qEnvironmentVariableIntValue("ENSEMBLELAB_KILLS") : 6;
    const quint32 seed = QRandomGenerator::system()->generate();
    qInfo("kill-anywhere: %d kills, seed %u", kills, seed);
    QRandomGenerator random(seed);
    int killed = 0, killedInCheckpoint = 0, finishedRuns = 0;
    for (int round = 0; round < 1000 && finishedRuns == 0; ++round) {
      QProcess cli;
      // Killed before it wrote config.json, a run is not there yet: start it again.
      const bool fresh = !QFile::exists(run + "/config.json");
      cli.start(ENSEMBLELAB_CLI_PATH,
                fresh ? QStringList{"train"} + kRun + QStringList{"--out", run} : QStringList{"resume", "--run", run});
      QVERIFY(cli.waitForStarted());
      if (killed < kills) {
        // Odd kills wait for a checkpoint write to be under way; even ones pick a moment.
        const bool inCheckpoint = killed % 2 == 1;
        const int delayMs = 300 + int(random.bounded(1500));
        QElapsedTimer clock;
        clock.start();
        if (inCheckpoint) {
          // A resumed run first clears what an earlier kill left mid-write; then wait for
          // its own next checkpoint write to begin.
          while (cli.state() == QProcess::Running && checkpointBeingWritten(run) && clock.elapsed() < 20000) {
            QThread::usleep(500);
          }
          while (cli.state() == QProcess::Running && !checkpointBeingWritten(run) && clock.elapsed() < 20000) {
            QThread::usleep(100);
          }
        } else {
          while (cli.state() == QProcess::Running && clock.elapsed() < delayMs) QThread::msleep(5);
        }
        if (cli.state() == QProcess::Running) {
          const bool duringWrite = checkpointBeingWritten(run);
          ::kill(pid_t(cli.processId()), SIGKILL);
          QVERIFY(cli.waitForFinished(10000));
          ++killed;
          killedInCheckpoint += duringWrite && inCheckpoint ? 1 : 0;
          expectEveryCheckpointLoads(run);
          continue;
        }
      }
      QVERIFY(cli.waitForFinished(300000));
      QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
      ++finishedRuns;
    }
    qInfo("kill-anywhere: %d kills, %d during a checkpoint write", killed, killedInCheckpoint);
    QVERIFY(killed >= kills / 2);
    QVERIFY(killedInCheckpoint >= 1);
    // The finished run holds only whole checkpoints.
    QVERIFY2(leftovers(run).isEmpty(), qPrintable(leftovers(run).join(", ")));
    expectSameAsUninterrupted(run);
  }
};

QTEST_APPLESS_MAIN(TestKillAnywhere)
#include "TestKillAnywhere.moc"
