// SPDX-License-Identifier: GPL-3.0-or-later
// The worker bridge: a real run in the training thread reports through queued signals,
// coalesced; pause and stop work from the UI thread; a run that cannot start fails
// cleanly and the next one starts.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

#include "core/train/CpuThreads.h"
#include "tests/RunStatusCheck.h"
#include "ui/RunController.h"

using namespace ensemble;
using ensemble::ui::RunController;

namespace {

ExperimentConfig quickConfig(int epochs) {
  ExperimentConfig config;
  config.dataset = "synthetic";
  config.mode = TrainingMode::Ensemble;
  config.devices = "cpu*2";
  config.batchSize = 32;
  config.epochs = epochs;
  config.trainLimit = 640;  // 20 steps per epoch
  config.logEvery = 1;
  return config;
}

struct OsThread {
  QString name;
  int niceness = 0;
};

// This process's threads as the kernel sees them: /proc/self/task/<tid>/stat holds the
// name in parentheses, and the nice value is the 17th field after it (proc(5), field 19).
QMap<qint64, OsThread> osThreads() {
  QMap<qint64, OsThread> threads;
  for (const QString& tid : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile file("/proc/self/task/" + tid + "/stat");
    if (!file.open(QIODevice::ReadOnly)) continue;  // the thread ended meanwhile
    const QString stat = QString::fromUtf8(file.readAll());
    const int open = stat.indexOf('('), close = stat.lastIndexOf(')');
    const QStringList fields = stat.mid(close + 2).split(' ');
    threads[tid.toLongLong()] = {stat.mid(open + 1, close - open - 1), fields.value(16).toInt()};
  }
  return threads;
}

}  // namespace

class TestRunController final : public QObject {
  Q_OBJECT

 private slots:
  void runReportsThroughQueuedSignals() {
    QTemporaryDir dir;
    RunController controller;
    QSignalSpy started(&controller, &RunController::runStarted);
    QSignalSpy steps(&controller, &RunController::stepsReady);
    QSignalSpy epochs(&controller, &RunController::epochFinished);
    QSignalSpy finished(&controller, &RunController::runFinished);
    controller.start(quickConfig(2), dir.filePath("run"));
    QVERIFY(controller.isRunning());
    QVERIFY(finished.wait(120000));
    QCOMPARE(started.count(), 1);
    QCOMPARE(epochs.count(), 2);
    const auto event = finished.first().first().value<RunFinishedEvent>();
    REQUIRE_COMPLETED(event);
    QVERIFY(!controller.isRunning());
    // Every logged step arrives exactly once, in order, however the batches were cut.
    int64_t expected = 1, batches = 0;
    for (const QList<QVariant>& emission : steps) {
      ++batches;
      for (const StepEvent& step : emission.first().value<QVector<StepEvent>>()) {
        QCOMPARE(step.globalStep, expected++);
        QVERIFY(step.logged);
        QCOMPARE(int(step.members.size()), 2);
      }
    }
    QCOMPARE(expected, int64_t(41));
    QVERIFY(batches <= 40);
  }

  void pauseAndStopFromTheUiThread() {
    QTemporaryDir dir;
    RunController controller;
    QSignalSpy steps(&controller, &RunController::stepsReady);
    QSignalSpy paused(&controller, &RunController::pausedChanged);
    QSignalSpy finished(&controller, &RunController::runFinished);
    controller.start(quickConfig(100), dir.filePath("run"));
    QVERIFY(steps.wait(60000));
    controller.pause();
    QTRY_COMPARE_WITH_TIMEOUT(paused.count(), 1, 30000);
    QCOMPARE(paused.first().first().toBool(), true);
    QTRY_VERIFY(controller.isPaused());
    const int batchesWhilePaused = steps.count();
    controller.unpause();
    QTRY_COMPARE_WITH_TIMEOUT(paused.count(), 2, 30000);
    QCOMPARE(paused.last().first().toBool(), false);
    QVERIFY(steps.wait(60000));  // training goes on after resuming
    QVERIFY(steps.count() > batchesWhilePaused);
    controller.stop();
    QVERIFY(finished.wait(30000));
    EXPECT_STATUS(finished.first().first().value<RunFinishedEvent>(), RunStatus::Stopped);
    QVERIFY(QFileInfo::exists(dir.filePath("run/checkpoints/latest")));
  }

  void trainingRunsBelowTheGuiThreadsPriority() {
#ifndef __linux__
    QSKIP("per-thread nice values are Linux's");
#endif
    // Relative to the nice value the test was started at (`nice ctest` starts it at 10).
    const int started = currentThreadNiceness();
    if (started >= kBackgroundNiceness) QSKIP("started at nice 10 or more: nothing to lower the training to");
    QTemporaryDir dir;
    RunController controller;
    QSignalSpy steps(&controller, &RunController::stepsReady);
    QSignalSpy finished(&controller, &RunController::runFinished);
    ExperimentConfig config = quickConfig(100);
    config.devices = "cpu*3";
    controller.start(config, dir.filePath("run"));
    QVERIFY(steps.wait(60000));
    const QMap<qint64, OsThread> threads = osThreads();
    controller.stop();
    QVERIFY(finished.wait(30000));

    int training = 0, replicas = 0;
    for (auto it = threads.begin(); it != threads.end(); ++it) {
      const QString what = QString("%1 (tid %2) nice %3").arg(it->name).arg(it.key()).arg(it->niceness);
      if (it.key() == QCoreApplication::applicationPid()) {
        QVERIFY2(it->niceness == started, qPrintable("the GUI thread must keep its priority: " + what));
      } else if (it->name == "training" || it->name == "replica") {
        QVERIFY2(it->niceness == kBackgroundNiceness, qPrintable("a training thread must yield to the GUI: " + what));
        ++(it->name == "training" ? training : replicas);
      }
    }
    // The QThread, plus any helper thread LibTorch starts from it: Linux gives a new thread
    // its creator's name and nice value (LibTorch 2.15 starts one such pool thread).
    QVERIFY2(training >= 1, "no thread named \"training\"");
    // One replica thread per core beside the training thread, at most one per replica.
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    QCOMPARE(replicas, std::min(3, cores) - 1);
  }

  void aRunThatCannotStartFailsAndTheNextStarts() {
    QTemporaryDir dir;
    RunController controller;
    QSignalSpy finished(&controller, &RunController::runFinished);
    ExperimentConfig broken = quickConfig(1);
    broken.dataset = dir.filePath("no-such-dataset").toStdString();
    controller.start(broken, dir.filePath("bad"));
    QVERIFY(finished.wait(30000));
    const auto failed = finished.first().first().value<RunFinishedEvent>();
    EXPECT_STATUS(failed, RunStatus::Failed);
    QVERIFY2(QString::fromStdString(failed.message).contains("does not exist"), failed.message.c_str());
    QVERIFY(!QFileInfo::exists(dir.filePath("bad")));
    controller.start(quickConfig(1), dir.filePath("good"));
    QVERIFY(finished.wait(120000));
    REQUIRE_COMPLETED(finished.last().first().value<RunFinishedEvent>());
  }

  void destroyingTheControllerStopsTheRun() {
    QTemporaryDir dir;
    {
      RunController controller;
      QSignalSpy steps(&controller, &RunController::stepsReady);
      controller.start(quickConfig(100), dir.filePath("run"));
      QVERIFY(steps.wait(60000));
    }  // must return promptly: the run stops at its next step and checkpoints
    QVERIFY(QFileInfo::exists(dir.filePath("run/checkpoints/latest")));
  }
};

QTEST_MAIN(TestRunController)
#include "TestRunController.moc"
