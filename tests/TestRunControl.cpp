// SPDX-License-Identifier: GPL-3.0-or-later
// Pause and stop, requested from another thread, take effect within one step.
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <thread>

#include "core/config/ExperimentConfig.h"
#include "core/train/RunControl.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingObserver.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

class StepCounter final : public TrainingObserver {
 public:
  void onStep(const StepEvent& event) override { step.store(event.globalStep); }
  void onPaused(bool paused) override { pauses += paused ? 1 : 0; }
  std::atomic<int64_t> step{0};
  std::atomic<int> pauses{0};
};

}  // namespace

class TestRunControl final : public QObject {
  Q_OBJECT

 private slots:
  void pauseAndStopTakeEffectWithinOneStep() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.epochs = 50;  // far more than the test lets it run
    auto trainer = Trainer::create(config, dir.path().toStdString(), testing::syntheticData());
    RunControl control;
    StepCounter counter;
    RunFinishedEvent finished;
    std::thread worker([&] { finished = trainer->run(&counter, &control); });

    QTRY_VERIFY_WITH_TIMEOUT(counter.step.load() >= 3, 60000);
    const int64_t atPause = counter.step.load();
    control.pause();
    QTRY_VERIFY_WITH_TIMEOUT(control.isParked(), 10000);
    const int64_t parkedAt = counter.step.load();
    QVERIFY2(parkedAt <= atPause + 1, qPrintable(QString("%1 -> %2").arg(atPause).arg(parkedAt)));
    QCOMPARE(counter.pauses.load(), 1);
    QVERIFY(control.isParked());  // still parked: no step ran while paused
    QCOMPARE(counter.step.load(), parkedAt);

    control.unpause();
    QTRY_VERIFY_WITH_TIMEOUT(counter.step.load() > parkedAt + 2, 60000);
    const int64_t atStop = counter.step.load();
    control.requestStop();
    worker.join();
    EXPECT_STATUS(finished, RunStatus::Stopped);
    QVERIFY2(trainer->globalStep() <= atStop + 1, qPrintable(QString("%1 -> %2").arg(atStop).arg(trainer->globalStep())));
    QVERIFY(trainer->globalStep() < config.epochs * trainer->stepsPerEpoch());
  }

  void stopWakesAPausedRun() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("single", "cpu");
    config.epochs = 50;
    auto trainer = Trainer::create(config, dir.path().toStdString(), testing::syntheticData());
    RunControl control;
    StepCounter counter;
    RunFinishedEvent finished;
    std::thread worker([&] { finished = trainer->run(&counter, &control); });
    QTRY_VERIFY_WITH_TIMEOUT(counter.step.load() >= 1, 60000);
    control.pause();
    QTRY_VERIFY_WITH_TIMEOUT(control.isParked(), 10000);
    control.requestStop();
    worker.join();
    EXPECT_STATUS(finished, RunStatus::Stopped);
    QVERIFY(QFileInfo::exists(dir.filePath("checkpoints/latest")));  // stopping checkpoints
  }

  void signalStyleStopIsSeenWithoutNotify() {
    RunControl control;
    control.pause();
    std::thread waiter([&] { control.waitWhilePaused(); });
    QTRY_VERIFY_WITH_TIMEOUT(control.isParked(), 5000);
    control.requestStopFromSignal();  // no notify, as from a signal handler
    waiter.join();
    QVERIFY(!control.isParked());
    QVERIFY(control.stopRequested());
  }
};

QTEST_APPLESS_MAIN(TestRunControl)
#include "TestRunControl.moc"
