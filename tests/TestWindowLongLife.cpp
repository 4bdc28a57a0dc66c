// SPDX-License-Identifier: GPL-3.0-or-later
// The window left open through 30 consecutive runs, as a person works through an afternoon:
// each started with Start, every third stopped with Stop as soon as it trains, the previous
// run selected for comparison and deselected again. After every run the process's threads
// and open files are back to at most what they were after the first (which starts
// LibTorch's thread pools for good), a deselected past run's curves are freed, and resident memory stays
// within a stated bound of what it was early on.
#include <QAction>
#include <QComboBox>
#include <QItemSelectionModel>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <vector>

#include "tests/FormSetup.h"
#include "tests/ProcessUsage.h"
#include "ui/ExperimentForm.h"
#include "ui/MainWindow.h"
#include "ui/RunController.h"
#include "ui/RunsModel.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

constexpr int kRuns = 30;
/// Resident memory (the median of five runs) may grow this much from runs 2-6 to runs
/// 26-30: measured 0% to +3% (the allocator's caches settling). Leaking each run's
/// training images alone (1.6 MB of the synthetic set) would add 38 MB, about 15%.
constexpr double kRssGrowthBound = 0.07;

}  // namespace

class TestWindowLongLife final : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
  }

  void thirtyRunsLeaveNothingBehind() {
    QTemporaryDir root;
    MainWindow window(root.path());
    window.setConfirmClose(false);
    window.show();
    testing::QuickRun quick;
    quick.cpuReplicas = 2;
    quick.epochs = 1;
    quick.evalEvery = 8;  // the live test curves between epoch ends, too
    testing::setUpForm(window.form(), quick);

    testing::ProcessUsage settled;
    std::vector<qint64> rssKiB;
    for (int run = 1; run <= kRuns; ++run) {
      const bool stopEarly = run % 3 == 0;
      QSignalSpy finished(window.controller(), &RunController::runFinished);
      QMetaObject::Connection stopper;
      if (stopEarly) {
        stopper = connect(window.controller(), &RunController::stepsReady, &window,
                          [&window] { window.stopAction()->trigger(); });
      }
      QVERIFY(window.startAction()->isEnabled());
      window.startAction()->trigger();
      QVERIFY2(finished.wait(120000), qPrintable(QString("run %1 did not finish").arg(run)));
      disconnect(stopper);
      const auto event = finished.first().first().value<RunFinishedEvent>();
      QCOMPARE(event.status, stopEarly ? RunStatus::Stopped : RunStatus::Completed);
      QTRY_VERIFY(window.startAction()->isEnabled());
      QCOMPARE(window.runsModel()->rowCount(), run);

      // The run before this one: selected, its curves load from metrics.csv; deselected,
      // they are freed (the newest run's stay: the plots always show it).
      if (run > 1) {
        window.runsView()->selectRow(1);
        QVERIFY(window.runsModel()->record(1).curves);
        window.runsView()->clearSelection();
        QVERIFY2(!window.runsModel()->record(1).curves, qPrintable(QString("run %1's curves kept").arg(run - 1)));
        QVERIFY(window.runsModel()->record(0).curves);
      }

      const QString self("self");
      if (run == 1) {
        QTRY_VERIFY(testing::usageOf(self).threads > 0);
        settled = testing::usageOf(self);
      } else {  // the run's threads are joined and its files closed once it has reported its end
        // At most as many as after run 1: a leak only adds. (One CI run of the wheel build saw
        // 15 after run 1 and 12 later; logged, the set is the same 13 every run here, three of
        // them inherited from ctest, whose open files vary under -j2.)
        QTRY_VERIFY_WITH_TIMEOUT(testing::usageOf(self).threads <= settled.threads, 10000);
        QTRY_VERIFY2_WITH_TIMEOUT(testing::usageOf(self).fds <= settled.fds,
                                  qPrintable(QString("after run %1: %2 descriptors, %3 after run 1")
                                                 .arg(run).arg(testing::usageOf(self).fds).arg(settled.fds)),
                                  10000);
      }
      rssKiB.push_back(testing::usageOf(self).rssKiB);
    }
    // One sample moves by ±10 MiB run to run (glibc's arenas): the medians of five runs
    // early on and at the end tell a trend from that.
    const qint64 early = testing::medianOf({rssKiB.begin() + 1, rssKiB.begin() + 6});
    const qint64 late = testing::medianOf({rssKiB.end() - 5, rssKiB.end()});
    qInfo("after run 1: %d threads, %d fds; RSS, median of runs 2-6: %lld KiB, of runs %d-%d: %lld KiB (%+.1f%%)",
          settled.threads, settled.fds, early, kRuns - 4, kRuns, late, 100.0 * double(late - early) / double(early));
#if !defined(ENSEMBLELAB_SANITIZED)
    // (Sanitizers quarantine freed memory: RSS is the Release build's measure.)
    QVERIFY2(double(late) <= double(early) * (1 + kRssGrowthBound),
             qPrintable(QString("RSS grew from %1 KiB (runs 2-6) to %2 KiB (the last five runs)").arg(early).arg(late)));
#endif
  }
};

QTEST_MAIN(TestWindowLongLife)
#include "TestWindowLongLife.moc"
