// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a runs folder of a heavy user: 1,000 runs, copied from real ones (their
// config.json, summary.json and metrics.csv; the checkpoints are not read to list or plot),
// one with a torn summary and one half deleted. It must list them quickly, scroll them
// smoothly, compare 20 at once, and show the broken ones as unreadable, saying why.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "tests/OwnTimeTimer.h"
#include "tests/RunStatusCheck.h"
#include "ui/MainWindow.h"
#include "ui/MetricPlot.h"
#include "ui/RunListView.h"
#include "ui/RunsModel.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

constexpr int kRuns = 1000;
#if defined(ENSEMBLELAB_SANITIZED)
// Under a sanitizer our code runs several times slower: the times are reported, not bounded.
constexpr bool kTimed = false;
#else
constexpr bool kTimed = true;
#endif

ExperimentConfig realRun(TrainingMode mode, const char* devices, std::uint64_t seed) {
  ExperimentConfig config;
  config.dataset = "synthetic";
  config.mode = mode;
  config.devices = devices;
  config.batchSize = 64;
  config.epochs = 4;
  config.trainLimit = 512;
  config.seed = seed;
  return config;
}

bool copyFile(const QString& from, const QString& to) { return QFile::copy(from, to); }

}  // namespace

class TestManyRuns final : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;
  QString m_torn, m_halfDeleted;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir originals;
    const QString sources[] = {originals.filePath("single"), originals.filePath("ensemble")};
    REQUIRE_COMPLETED(Trainer::create(realRun(TrainingMode::Single, "cpu", 1), sources[0].toStdString())->run(nullptr, nullptr));
    REQUIRE_COMPLETED(Trainer::create(realRun(TrainingMode::Ensemble, "cpu*2", 2), sources[1].toStdString())->run(nullptr, nullptr));
    for (int i = 0; i < kRuns; ++i) {
      const QString source = sources[i % 2];
      const QString target = m_root.filePath(QString("20260101-%1-%2-cnn").arg(i, 9, 10, QChar('0')).arg(i % 2 ? "ensemble" : "single"));
      QVERIFY(QDir().mkpath(target));
      for (const char* file : {"summary.json", "metrics.csv"}) QVERIFY(copyFile(source + "/" + file, target + "/" + file));
      // Each its own setup (a learning-rate scan), so that none is folded into a seed group.
      QFile config(source + "/config.json");
      QVERIFY(config.open(QIODevice::ReadOnly));
      QJsonObject settings = QJsonDocument::fromJson(config.readAll()).object();
      settings["lr"] = 0.01 + 0.0001 * i;
      QFile copy(target + "/config.json");
      QVERIFY(copy.open(QIODevice::WriteOnly) && copy.write(QJsonDocument(settings).toJson()) > 0);
      if (i == 500) m_torn = target;
      if (i == 501) m_halfDeleted = target;
    }
    // A summary cut off mid-write by a crash of another tool, and a run whose deletion
    // stopped halfway (its config and curves gone).
    QFile summary(m_torn + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadWrite));
    QVERIFY(summary.resize(summary.size() / 2));
    summary.close();
    QVERIFY(QFile::remove(m_halfDeleted + "/config.json") && QFile::remove(m_halfDeleted + "/metrics.csv"));
  }

  void aThousandRunsAreListedComparedAndScrolledQuickly() {
    QElapsedTimer clock;
    clock.start();
    MainWindow window(m_root.path());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunsModel& runs = *window.runsModel();
    QTRY_COMPARE(runs.rowCount(), kRuns);
    const qint64 listed = clock.elapsed();
    QVERIFY2(!kTimed || listed < 2000, qPrintable(QString("listing %1 runs took %2 ms").arg(kRuns).arg(listed)));

    // The broken two: "unreadable", and the tooltip says why; the others are whole.
    int unreadable = 0;
    for (int row = 0; row < runs.rowCount(); ++row) {
      const QModelIndex status = runs.index(row, RunsModel::Status);
      if (runs.data(status, Qt::DisplayRole).toString() != "unreadable") continue;
      ++unreadable;
      const QString directory = runs.record(row).directory;
      QVERIFY2(directory == m_torn || directory == m_halfDeleted, qPrintable(directory));
      const QString why = runs.data(status, Qt::ToolTipRole).toString();
      QVERIFY2(why.contains(directory == m_torn ? "summary.json" : "config.json"), qPrintable(why));
    }
    QCOMPARE(unreadable, 2);

    // Scrolling: each step down the list repaints within a frame budget (the GUI thread's own
    // time: its waits for a core on a busy machine are not ours).
    QTableView* table = window.runsView();
    QScrollBar* bar = table->verticalScrollBar();
    qint64 slowestScroll = 0;
    for (int step = 0; step <= 40; ++step) {
      testing::OwnTimeTimer frame;
      frame.start();
      bar->setValue(bar->maximum() * step / 40);
      table->viewport()->repaint();
      slowestScroll = std::max(slowestScroll, frame.elapsedMs());
    }
    QVERIFY2(!kTimed || slowestScroll < 50, qPrintable(QString("a scroll step took %1 ms").arg(slowestScroll)));

    // Twenty runs compared: selecting them, and then each plot's repaint.
    QElapsedTimer selecting;
    selecting.start();
    QItemSelection twenty;
    for (int row = 100; row < 120; ++row) twenty.select(runs.index(row, 0), runs.index(row, runs.columnCount() - 1));
    table->selectionModel()->select(twenty, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const QVector<MetricPlot*>& plots = window.plots();
    QTRY_VERIFY(plots[3]->graphCount() >= 20);
    const qint64 selected = selecting.elapsed();
    qint64 slowestReplot = 0;
    for (MetricPlot* plot : plots) {
      auto* canvas = plot->findChild<QCustomPlot*>();
      QVERIFY(canvas);
      for (int repeat = 0; repeat < 5; ++repeat) {
        testing::OwnTimeTimer frame;
        frame.start();
        canvas->replot(QCustomPlot::rpImmediateRefresh);
        slowestReplot = std::max(slowestReplot, frame.elapsedMs());
      }
    }
    QVERIFY2(!kTimed || slowestReplot < 100, qPrintable(QString("a plot of 20 runs took %1 ms to repaint").arg(slowestReplot)));

    // All of them selected (Ctrl+A): the window answers, each plot holding every run. (Each
    // legend entry taken out one by one had re-laid the legend: 300 runs took 6.6 s, 3,000 froze
    // the window for more than 7 minutes.)
    QElapsedTimer everything;
    everything.start();
    table->setFocus();
    QTest::keyClick(table, Qt::Key_A, Qt::ControlModifier);
    QCOMPARE(table->selectionModel()->selectedRows().size(), kRuns);
    for (MetricPlot* plot : plots) {  // every plot drawn with them all (the two broken runs have no curves)
      QTRY_VERIFY_WITH_TIMEOUT(plot->graphCount() >= kRuns - 2, 120000);
      plot->findChild<QCustomPlot*>()->replot(QCustomPlot::rpImmediateRefresh);
    }
    // ...and back to one run: each plot lets go of its thousands of lines and legend entries.
    table->selectionModel()->select(runs.index(7, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    for (MetricPlot* plot : plots) QTRY_VERIFY_WITH_TIMEOUT(plot->graphCount() < 10, 120000);
    const qint64 all = everything.elapsed();
    QVERIFY2(!kTimed || all < 30000, qPrintable(QString("selecting all %1 runs and one again took %2 ms").arg(kRuns).arg(all)));
    qInfo("%d runs listed in %lld ms; slowest scroll step %lld ms; 20 runs selected and plotted in %lld ms, "
          "slowest repaint of a plot %lld ms; all %d selected and plotted, then one again, in %lld ms",
          kRuns, listed, slowestScroll, selected, slowestReplot, kRuns, all);
  }
};

QTEST_MAIN(TestManyRuns)
#include "TestManyRuns.moc"
