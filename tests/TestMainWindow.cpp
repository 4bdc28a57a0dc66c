// SPDX-License-Identifier: GPL-3.0-or-later
// The window as a user drives it (offscreen): past runs reload, invalid setup disables
// Start, a real run streams into the plots and the run list, runs compare, plots and
// metrics export, a failing run leaves the app usable, closing mid-run stops cleanly.
#include <qcustomplot.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QImage>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QHeaderView>
#include <QLineEdit>
#include <QMessageBox>
#include <QTimer>
#include <QPushButton>
#include <QElapsedTimer>
#include <QFontMetricsF>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QScreen>
#include <QScopeGuard>
#include <QSlider>
#include <QXmlStreamReader>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTableView>
#include <QTabWidget>
#include <QToolButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>
#include <memory>

#include "core/io/MetricsCsvReader.h"
#include "core/io/WriteFaults.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingObserver.h"
#include "tests/FormSetup.h"
#include "tests/OwnTimeTimer.h"
#include "tests/RunStatusCheck.h"
#include "ui/ConfusionMatrixPlot.h"
#include "ui/ElidedLabel.h"
#include "ui/EnsembleBreakdownView.h"
#include "ui/ExperimentForm.h"
#include "ui/ExportActions.h"
#include "ui/MainWindow.h"
#include "ui/RunStatusLine.h"
#include "ui/ReliabilityDiagram.h"
#include "ui/MetricPlot.h"
#include "ui/MistakesView.h"
#include "ui/PlotExport.h"
#include "ui/PlotLegend.h"
#include "ui/PlotPanel.h"
#include "ui/RunColors.h"
#include "ui/RunController.h"
#include "ui/RunListView.h"
#include "ui/RunsModel.h"
#include "ui/OodView.h"
#include "ui/ShiftView.h"
#include "ui/TabPaneHeights.h"
#include "ui/UncertaintyView.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

QByteArray fileBytes(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void quickSetup(ExperimentForm* form) { testing::setUpForm(form); }

/// A small single-model run on the synthetic set, two epochs of 16 steps.
ExperimentConfig pastRunConfig() {
  ExperimentConfig config;
  config.dataset = "synthetic";
  config.mode = TrainingMode::Single;
  config.devices = "cpu";
  config.batchSize = 64;
  config.epochs = 2;
  config.trainLimit = 1024;
  return config;
}

#if defined(ENSEMBLELAB_SANITIZED)
// Sanitized code runs several times slower and CI runs two tests at once; the 100 ms bound
// is the normal build's. Measured there (gap less waits for a core): 15-17 ms idle, 15-28 ms
// with three busy loops on the two cores (21-42 ms by the wall clock); a 150 ms busy wait
// added to MainWindow::onSteps gave 173 ms.
constexpr qint64 kMaxTickGapMs = 250;
#else
constexpr qint64 kMaxTickGapMs = 100;
#endif

}  // namespace

class TestMainWindow final : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;
  std::unique_ptr<MainWindow> m_window;  ///< the window that trained the live run
  RunFinishedEvent m_liveRun;
  qint64 m_worstGap = 0;      ///< the longest gap between ticks, less the waits for a core
  qint64 m_worstWallGap = 0;  ///< the longest gap as a clock sees it

  /// A runs folder of two finished runs, 20260101-000000000-first and 20260102-000000000-second
  /// (copies of the past single-model run's files, not its checkpoints).
  bool copyPastRunAsFirstAndSecond(const QString& root) {
    const QString past = m_root.filePath("20260101-000000000-single-cnn");
    for (const QString name : {"20260101-000000000-first", "20260102-000000000-second"}) {
      if (!QDir(root).mkpath(name)) return false;
      for (const QString file : {"config.json", "summary.json", "metrics.csv"}) {
        if (!QFile::copy(past + "/" + file, root + "/" + name + "/" + file)) return false;
      }
    }
    return true;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    // A past run written by the engine, as the CLI writes it.
    const ExperimentConfig config = pastRunConfig();
    auto trainer = Trainer::create(config, m_root.filePath("20260101-000000000-single-cnn").toStdString());
    REQUIRE_COMPLETED(trainer->run(nullptr, nullptr));
  }

  void typingInvalidValuesDisablesStartWithTheReason() {
    MainWindow window(m_root.path());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QLineEdit* lr = window.form()->learningRateEdit();
    auto* reason = window.form()->findChild<QLabel*>("error-lr");
    QVERIFY(window.startAction()->isEnabled());
    QTest::mouseClick(lr, Qt::LeftButton);
    QTest::keyClick(lr, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(lr, "-0.5");
    QCOMPARE(lr->text(), QString("-0.5"));
    QVERIFY(!window.startAction()->isEnabled());
    QVERIFY(!reason->isHidden());
    QVERIFY2(reason->text().contains("learning rate (lr) must be a positive"), qPrintable(reason->text()));
    QTest::keyClick(lr, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(lr, "0.05");
    QVERIFY(window.startAction()->isEnabled());
    QVERIFY(reason->isHidden());
    QSpinBox* batch = window.form()->batchSizeBox();
    QTest::keyClick(batch, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(batch, "0");
    QVERIFY(!window.startAction()->isEnabled());
    QTest::keyClick(batch, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(batch, "64");
    QVERIFY(window.startAction()->isEnabled());
  }

  // The live run the next slots look at: trained once, in a shown window, as a person would
  // start it, while a 10 ms timer measures the longest gap in the GUI thread: the time
  // between two ticks less the time the thread waited for a core (working or blocked in our
  // code counts; a machine busy elsewhere does not).
  void trainLiveRun() {
    m_window = std::make_unique<MainWindow>(m_root.path());
    MainWindow& window = *m_window;
    window.show();
    QCOMPARE(window.runsModel()->rowCount(), 1);  // the past run, reloaded
    quickSetup(window.form());
    window.smoothingSlider()->setValue(0);  // the plots then hold the engine's values as they are
    testing::TickGapWatch gaps;
    QSignalSpy finished(window.controller(), &RunController::runFinished);
    QSignalSpy steps(window.controller(), &RunController::stepsReady);
    window.startAction()->trigger();
    gaps.start();
    QVERIFY(!window.startAction()->isEnabled());
    QVERIFY(window.stopAction()->isEnabled());
    QVERIFY(finished.wait(180000));
    gaps.stop();
    m_worstGap = gaps.worstMs();
    m_worstWallGap = gaps.worstWallMs();
    QVERIFY(steps.count() > 0);
    m_liveRun = finished.first().first().value<RunFinishedEvent>();
    REQUIRE_COMPLETED(m_liveRun);
  }

  void theWindowAnswersWhileTraining() {
    QVERIFY(m_window);
    qInfo("longest gap between 10 ms ticks while training: %lld ms, not counting waits for a core or the hypervisor (%lld ms counting "
          "them)", m_worstGap, m_worstWallGap);
    QVERIFY2(m_worstGap < kMaxTickGapMs, qPrintable(QString("event loop stalled for %1 ms").arg(m_worstGap)));
  }

  // The status bar says a rate that varies (a warmup, a schedule) as the steps come, and no
  // rate where it is the run's constant lr.
  void theStatusLineSaysAVaryingLearningRate() {
    QStatusBar bar;
    RunStatusLine line(&bar);
    StepEvent step;
    step.epoch = 1;
    step.epochs = 2;
    step.stepInEpoch = 3;
    step.stepsPerEpoch = 10;
    step.globalStep = 3;
    step.imagesPerSecond = 900;
    line.stepsDone(step, false, false);
    QVERIFY2(line.text().startsWith("Epoch 1/2 · step 3/10 · 900 img/s") && !line.text().contains("lr"),
             qPrintable(line.text()));
    step.learningRate = 0.0375;
    line.stepsDone(step, false, false);
    QVERIFY2(line.text().startsWith("Epoch 1/2 · step 3/10 · lr 0.0375 · 900 img/s"), qPrintable(line.text()));
  }

  void theFinishedRunTopsTheRunList() {
    MainWindow& window = *m_window;
    QTRY_VERIFY(window.startAction()->isEnabled());
    QCOMPARE(window.runsModel()->rowCount(), 2);
    QVERIFY(window.statusText().contains("Run finished"));
    QCOMPARE(window.runsModel()->rowOf(QString::fromStdString(m_liveRun.runDirectory)), 0);
    QCOMPARE(window.runsModel()->data(window.runsModel()->index(0, RunsModel::Status), Qt::DisplayRole).toString(),
             QString("completed"));
  }

  void theLiveCurvesAreTheEnginesNumbers() {
    MainWindow& window = *m_window;
    // 3 members + ensemble, 16 steps per epoch.
    MetricPlot* trainLoss = window.plots()[0];
    QTRY_COMPARE(trainLoss->pointsOf(0, RunCurves::kEnsemble), 5);  // steps 10, 16 (epoch end), 20, 30, 32
    QTRY_COMPARE(window.plots()[3]->pointsOf(0, RunCurves::kEnsemble), 2);  // two epochs, on the next repaint
    // ... and they are exactly the values the engine wrote to metrics.csv.
    int index = 0;
    for (const MetricsRow& row : readMetricsCsv(m_liveRun.runDirectory + "/metrics.csv")) {
      if (row.member != "ensemble" || row.testLoss) continue;
      // metrics.csv keeps 10 significant digits; the plot got the full double.
      QVERIFY(std::abs(trainLoss->smoothedValue(0, RunCurves::kEnsemble, index++) - *row.trainLoss) < 1e-8);
    }
    QCOMPARE(index, 5);
  }

  void theEnsembleTabBreaksTheLastEpochDown() {
    // Three members, their mean, the ensemble; a 3-point size curve.
    QCOMPARE(m_window->memberTable()->rowCount(), 5);
    QCOMPARE(m_window->sizePlot()->graph(0)->dataCount(), 3);
  }

  // The Uncertainty tab follows the run: the last epoch's reliability bins, the ensemble's
  // ECE in the legend as the summary has it, and a line per member on request.
  void theUncertaintyTabShowsTheReliabilityDiagram() {
    ReliabilityDiagram* diagram = m_window->reliabilityDiagram();
    const RunRecord& live = m_window->runsModel()->record(m_window->runsModel()->liveRow());
    QVERIFY(live.summary && live.summary->evaluation);
    const EvaluationResult& evaluation = *live.summary->evaluation;
    QCustomPlot* plot = diagram->plot();
    auto* accuracy = qobject_cast<QCPBars*>(plot->plottable(1));
    QVERIFY(accuracy);
    int filled = 0;
    for (const int64_t count : evaluation.ensembleReliability.count) filled += count > 0;
    QCOMPARE(accuracy->dataCount(), filled);
    QCOMPARE(accuracy->name(), QString("%1: ensemble, ECE %2").arg(live.legendLabel()).arg(evaluation.ensemble.ece, 0, 'f', 4));
    const int before = plot->graphCount();
    diagram->membersBox()->setChecked(true);
    QCOMPARE(plot->graphCount(), before + 3);
    // What a person sees (kept in the build folder for review).
    m_window->resize(1400, 900);
    QTabWidget* tabs = m_window->tabs();
    tabs->setCurrentWidget(m_window->uncertaintyView());
    QCoreApplication::processEvents();
    QVERIFY(m_window->grab().save(QDir::current().filePath("uncertainty-tab.png")));
    diagram->membersBox()->setChecked(false);
    tabs->setCurrentIndex(0);
  }

  void selectingRunsOverlaysThemOnThePlots() {
    MainWindow& window = *m_window;
    window.runsView()->selectAll();
    QTRY_COMPARE(window.plots()[3]->graphCount(), 4 + 1);  // the live run's 4 curves, the past single run's
    QCOMPARE(window.plots()[3]->pointsOf(1, 0), 2);
    // Columns fit their content: the run names whole, the last column no wider than its own.
    QTableView* table = window.runsView();
    const QFontMetrics metrics(table->font());
    for (int row = 0; row < window.runsModel()->rowCount(); ++row) {
      QVERIFY(table->columnWidth(RunsModel::Name) >= metrics.horizontalAdvance(window.runsModel()->record(row).name()));
    }
    const int last = RunsModel::ColumnCount - 1;
    QVERIFY(table->columnWidth(last) <= std::max(static_cast<QAbstractItemView*>(table)->sizeHintForColumn(last), table->horizontalHeader()->sectionSizeHint(last)) + 2);
    // The Uncertainty view compares the first two selected runs.
    QCOMPARE(window.uncertaintyView()->shift()->computeButton()->text(), QString("Compute for both runs"));
    // Each shown run's Run cell has a swatch of its plot colour: its bold line's, a shade darker.
    RunsModel& runs = *window.runsModel();
    QSet<QRgb> swatches;
    for (int row = 0; row < runs.rowCount(); ++row) {
      QVERIFY2(runs.data(runs.index(row, RunsModel::Name), Qt::DecorationRole).canConvert<QIcon>(),
               qPrintable(runs.record(row).name()));
      const QColor swatch = runs.plotColor(row);
      QVERIFY(swatch.isValid());
      swatches.insert(swatch.rgb());
      bool drawn = false;
      for (int g = 0; g < window.plots()[3]->customPlot()->graphCount(); ++g) {
        const QCPGraph* graph = window.plots()[3]->customPlot()->graph(g);
        if (graph->name() != runs.record(row).legendLabel()) continue;
        QCOMPARE(graph->pen().color(), swatch.darker(115));
        drawn = true;
      }
      QVERIFY2(drawn, qPrintable(runs.record(row).legendLabel()));
    }
    QCOMPARE(swatches.size(), runs.rowCount());  // one colour a run
    // A run no longer shown loses its swatch.
    window.runsView()->selectRow(0);
    QTRY_VERIFY(!runs.data(runs.index(1, RunsModel::Name), Qt::DecorationRole).isValid());
    QVERIFY(!runs.plotColor(1).isValid());
    QVERIFY(runs.data(runs.index(0, RunsModel::Name), Qt::DecorationRole).isValid());
    window.runsView()->selectAll();
  }

  // One selection drives everything: the plots draw exactly the selected runs (the live one
  // too only while selected), and the Ensemble tab and the reliability diagram show the
  // first selected run's evaluation, each naming it.
  void theSelectionDrivesThePlotsAndTheTabs() {
    MainWindow& window = *m_window;
    RunsModel& runs = *window.runsModel();
    const int liveRow = runs.liveRow(), pastRow = liveRow == 0 ? 1 : 0;
    const RunRecord& live = runs.record(liveRow);
    const RunRecord& past = runs.record(pastRow);
    const auto accuracyBars = [&] { return qobject_cast<QCPBars*>(window.reliabilityDiagram()->plot()->plottable(1)); };

    window.runsView()->selectRow(pastRow);
    QTRY_COMPARE(window.plots()[3]->graphCount(), 1);  // the past single model's test accuracy alone
    QCOMPARE(window.plots()[0]->graphCount(), 1);
    QCOMPARE(window.memberTable()->rowCount(), 1);
    QCOMPARE(window.memberTable()->item(0, 0)->text(), QString("model"));
    QVERIFY2(window.ensembleBreakdown()->caption().startsWith(past.legendLabel()),
             qPrintable(window.ensembleBreakdown()->caption()));
    QVERIFY(accuracyBars() && accuracyBars()->name().startsWith(past.legendLabel() + ": model, ECE"));

    window.runsView()->selectRow(liveRow);
    QTRY_COMPARE(window.plots()[3]->graphCount(), 4);  // 3 members and the ensemble
    QCOMPARE(window.memberTable()->rowCount(), 5);
    QCOMPARE(window.memberTable()->item(0, 0)->text(), QString("ensemble"));  // in view above the members
    QVERIFY(window.ensembleBreakdown()->caption().startsWith(live.legendLabel()));
    QVERIFY(accuracyBars()->name().startsWith(live.legendLabel() + ": ensemble, ECE"));

    window.runsView()->clearSelection();
    QTRY_COMPARE(window.plots()[3]->graphCount(), 0);  // the live run too: it is not selected
    QCOMPARE(window.memberTable()->rowCount(), 0);
    QVERIFY(window.ensembleBreakdown()->caption().contains("Select a run"));
    QCOMPARE(window.reliabilityDiagram()->plot()->plottableCount(), 0);
    window.runsView()->selectAll();
    QTRY_COMPARE(window.plots()[3]->graphCount(), 4 + 1);
    // Two runs selected: the reliability diagram draws the second over the first, named and
    // in the colour it has on every other plot.
    const QCPGraph* second = nullptr;
    QCustomPlot* reliability = window.reliabilityDiagram()->plot();
    for (int g = 0; g < reliability->graphCount(); ++g) {
      if (reliability->graph(g)->name().startsWith(runs.record(1).legendLabel() + ": ")) second = reliability->graph(g);
    }
    QVERIFY2(second, "the second selected run is not in the reliability diagram");
    QCOMPARE(second->pen().color(), runColor(1));
    QVERIFY(second->dataCount() > 0);
    // The Ensemble tab lists both runs' rows under their names, and draws both runs'
    // accuracy-vs-size curves, named, in their colours.
    const QString caption = window.ensembleBreakdown()->caption();
    QVERIFY2(caption.contains(runs.record(0).legendLabel()) && caption.contains(runs.record(1).legendLabel()),
             qPrintable(caption));
    QTableWidget* members = window.memberTable();
    QStringList names;
    for (int row = 0; row < members->rowCount(); ++row) names << members->item(row, 0)->text();
    const int liveNamed = int(names.indexOf(live.legendLabel())), pastNamed = int(names.indexOf(past.legendLabel()));
    QVERIFY2(liveNamed >= 0 && pastNamed >= 0, qPrintable(names.join(" | ")));
    QCOMPARE(members->rowCount(), 1 + 5 + 1 + 1);  // each run's name, then its rows
    QCOMPARE(names.mid(pastNamed + 1, 1), QStringList({"model"}));
    QCOMPARE(names.mid(liveNamed + 1, 2), QStringList({"ensemble", "mean of members"}));
    QCustomPlot* sizes = window.sizePlot();
    QCOMPARE(sizes->legend->itemCount(), 2);
    const QCPGraph* secondSizes = nullptr;
    for (int g = 0; g < sizes->graphCount(); ++g) {
      if (sizes->graph(g)->name() == runs.record(1).legendLabel()) secondSizes = sizes->graph(g);
    }
    QVERIFY(secondSizes && secondSizes->pen().color() == runColor(1) && secondSizes->dataCount() > 0);
    // One run again: its rows alone, unnamed in the table (the caption names it).
    window.runsView()->selectRow(pastRow);
    QTRY_COMPARE(members->rowCount(), 1);
    QVERIFY(!sizes->legend->visible());
  }

  // At the default 1400x900 and at 1920x1080, with two runs compared: every legend sits
  // under its plot's axes (never over the data), and the Ensemble tab's names are whole.
  // The screenshots (in the build folder) are the README's.
  void theWindowFitsAt1400x900And1920x1080_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("1400x900") << 1400 << 900;
    QTest::newRow("1920x1080") << 1920 << 1080;
  }
  void theWindowFitsAt1400x900And1920x1080() {
    QFETCH(int, width);
    QFETCH(int, height);
    MainWindow& window = *m_window;
    window.resize(width, height);
    window.runsView()->selectAll();
    QTRY_COMPARE(window.plots()[3]->graphCount(), 4 + 1);
    for (int tab = 0; tab < 3; ++tab) {
      window.tabs()->setCurrentIndex(tab);
      QTest::qWait(150);  // the plots' queued replot
      const QString shot = QString("window-%1x%2-tab%3.png").arg(width).arg(height).arg(tab);
      QVERIFY(window.grab().save(QDir::current().filePath(shot)));
    }
    // One legend, above the plots, names each run once and every name whole; the plots
    // carry none of their own.
    window.tabs()->setCurrentIndex(0);
    QCoreApplication::processEvents();
    auto* legend = window.findChild<PlotLegend*>("plotLegend");
    QVERIFY(legend && legend->isVisible());
    const QWidget* firstPlot = window.plots()[0];
    QVERIFY(legend->mapTo(&window, QPoint(0, legend->height())).y() <= firstPlot->mapTo(&window, QPoint(0, 0)).y());
    QStringList named;
    for (int i = 0; i < legend->entries().size(); ++i) {
      named << legend->entries()[i].name;
      QCOMPARE(legend->entryRect(i).width(), legend->entryWidth(i));
    }
    for (int row = 0; row < window.runsModel()->rowCount(); ++row) {
      QCOMPARE(named.count(window.runsModel()->record(row).legendLabel()), 1);
    }
    for (MetricPlot* plot : window.plots()) QVERIFY2(!plot->customPlot()->legend->visible(), qPrintable(plot->title()));
    // The Runs list shows each run's results without a sideways scroll (RunColumns.h).
    const QHeaderView* runsHeader = window.runsView()->horizontalHeader();
    for (const int column : {RunsModel::TestAccuracy, RunsModel::EnsembleNll}) {
      const int right = runsHeader->sectionViewportPosition(column) + runsHeader->sectionSize(column);
      QVERIFY2(right <= window.runsView()->viewport()->width(),
               qPrintable(QString("column %1 ends at %2 px of %3").arg(column).arg(right).arg(window.runsView()->viewport()->width())));
    }
    window.tabs()->setCurrentIndex(1);
    QCoreApplication::processEvents();
    QTableWidget* members = window.memberTable();
    const QFontMetrics metrics(members->font());
    for (int row = 0; row < members->rowCount(); ++row) {
      int width = 0;  // a run's name spans the row
      for (int column = 0; column < members->columnSpan(row, 0); ++column) width += members->columnWidth(column);
      QVERIFY2(width >= metrics.horizontalAdvance(members->item(row, 0)->text()),
               qPrintable(members->item(row, 0)->text() + " is clipped"));
    }
    theEnsembleTabFits(window, /*legendRoom=*/true);
    window.tabs()->setCurrentIndex(0);
    window.resize(1400, 900);
  }

  // The Ensemble tab at the window's size: the member table's columns fit its width, each
  // score whole (the last column had kept the header's default 100 px on top of its share,
  // 443 px in 418, and at 960 px the size plot's legend left the table 101 px); the size
  // plot's axis label and legend inside the plot, the legend shown where there is `legendRoom`
  // for a run's name (where there is not, the table's coloured rows name the curves).
  static void theEnsembleTabFits(MainWindow& window, bool legendRoom) {
    everyScoreFitsItsTable(window.memberTable());
    QCustomPlot* sizes = window.ensembleBreakdown()->sizePlot();
    sizes->replot();
    const QStringList label = sizes->xAxis->label().split('\n');
    QVERIFY2(label.size() <= 2, qPrintable(label.join(" / ")));  // more would take the axes' height
    const QFontMetrics labelMetrics(sizes->xAxis->labelFont());
    for (const QString& line : label)
      QVERIFY2(labelMetrics.horizontalAdvance(line) <= sizes->axisRect()->width() + sizes->axisRect()->margins().left(),
               qPrintable(QString("'%1' under %2 px of axes").arg(line).arg(sizes->axisRect()->width())));
    QCOMPARE(sizes->legend->visible(), legendRoom);
    if (legendRoom) QVERIFY(sizes->viewport().contains(sizes->legend->outerRect()));
  }

  static void everyScoreFitsItsTable(QTableWidget* members) {
    QVERIFY2(members->horizontalScrollBar()->maximum() == 0 &&
                 members->horizontalHeader()->length() <= members->viewport()->width(),
             qPrintable(QString("%1 px of columns in %2").arg(members->horizontalHeader()->length())
                            .arg(members->viewport()->width())));
    for (int row = 0; row < members->rowCount(); ++row) {
      if (members->columnSpan(row, 0) > 1) continue;  // a run's name, checked above
      for (int column = 0; column < members->columnCount(); ++column) {
        const QTableWidgetItem* cell = members->item(row, column);
        const QString text = cell->text();
        QVERIFY2(QFontMetrics(cell->font()).horizontalAdvance(text) < members->columnWidth(column),
                 qPrintable(QString("'%1' in %2 px").arg(text).arg(members->columnWidth(column))));
      }
    }
  }

  // The breakdown gives its table the room for its scores whole and the plot the rest: the
  // plot takes a window's growth, gives way first when it narrows, and the table gets its room
  // back when it widens again; a splitter dragged by hand stays where it was put.
  void theMemberTableTakesItsRoomWhenShown() {
    EvaluationResult result;  // sixteen members' scores, as a 16-member run's evaluation holds
    for (int m = 0; m < 16; ++m) result.members.push_back({0.9 - 0.01 * m, 0.8 + 0.01 * m, 0.2, 0.03});
    result.meanMember = {0.85, 0.8, 0.21, 0.031};
    result.ensemble = {0.88, 0.7, 0.19, 0.02, 0.1};
    for (int k = 1; k <= 16; ++k) {
      result.accuracyVsSize.mean.push_back(0.8 + 0.005 * k);
      result.accuracyVsSize.min.push_back(0.79 + 0.005 * k);
      result.accuracyVsSize.max.push_back(0.81 + 0.005 * k);
    }
    result.samples = 10000;
    EnsembleBreakdownView view;
    view.showResult(result, "ensemble ×16 · lr 0.05 · 60000 imgs");
    view.showComparison(&result, "ensemble ×16 · lr 0.1 · 60000 imgs");
    view.resize(560, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    everyScoreFitsItsTable(view.memberTable());
    if (QTest::currentTestFailed()) return;
    auto* splitter = view.findChild<QSplitter*>();
    const int table = splitter->sizes()[0];
    view.resize(1200, 300);
    QCoreApplication::processEvents();
    QCOMPARE(splitter->sizes()[0], table);
    QCOMPARE(splitter->sizes()[1], splitter->width() - splitter->handleWidth() - table);
    view.resize(360, 300);  // narrower than the scores: the plot keeps its least width
    QCoreApplication::processEvents();
    QVERIFY(splitter->sizes()[0] < table);
    view.resize(1200, 300);  // and wide again: the table gets its room back
    QCoreApplication::processEvents();
    QCOMPARE(splitter->sizes()[0], table);
    QWidget* handle = splitter->handle(1);
    QTest::mousePress(handle, Qt::LeftButton, {}, QPoint(1, 50));
    QTest::mouseMove(handle, QPoint(101, 50));
    QTest::mouseRelease(handle, Qt::LeftButton, {}, QPoint(101, 50));
    const int dragged = splitter->sizes()[0];
    QVERIFY2(dragged > table + 50, qPrintable(QString("%1 px after the drag, %2 before").arg(dragged).arg(table)));
    view.showResult(result, "ensemble ×16 · lr 0.05 · 60000 imgs");
    view.resize(1100, 300);
    QCoreApplication::processEvents();
    QCOMPARE(splitter->sizes()[0], dragged);
  }

  // Five runs compared at 1400x900 (three ensembles, two single models): the one legend
  // above the plots takes three rows, and each plot keeps most of its height for its axes.
  // (Each plot's own legend had taken about two thirds of it.)
  void fiveComparedRunsLeaveThePlotsTheirHeight() {
    QTemporaryDir root;
    for (int i = 0; i < 5; ++i) {
      ExperimentConfig config;
      config.dataset = "synthetic";
      const bool ensemble = i % 2 == 0;
      config.mode = ensemble ? TrainingMode::Ensemble : TrainingMode::Single;
      config.devices = ensemble ? "cpu*2" : "cpu";
      config.momentum = 0.9 - 0.1 * i;  // five setups, none a seed of another
      config.batchSize = 64;
      config.epochs = 2;
      config.trainLimit = 512;
      const QString folder = QString("20260102-00000000%1-%2-cnn").arg(i).arg(ensemble ? "ensemble" : "single");
      REQUIRE_COMPLETED(Trainer::create(config, root.filePath(folder).toStdString())->run(nullptr, nullptr));
    }
    MainWindow window(root.path());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(window.runsModel()->rowCount(), 5);
    window.runsView()->selectAll();
    QTRY_COMPARE(window.plots()[3]->graphCount(), 3 * 3 + 2);  // an ensemble's two members and its line, a model's
    QTest::qWait(150);  // the plots' queued replot
    QVERIFY(window.grab().save(QDir::current().filePath("window-five-runs.png")));
    // The window stays the size it was given: the Ensemble and Uncertainty tabs' captions
    // (two long names and a note on the three left out) wrap rather than widen it.
    QCOMPARE(window.size(), QSize(1400, 900));
    auto* legend = window.findChild<PlotLegend*>("plotLegend");
    QVERIFY(legend && legend->isVisible());
    QCOMPARE(legend->entries().size(), 3 * 2 + 2);  // an ensemble's line and its members', a model's line
    QVERIFY2(legend->rows() <= 3, qPrintable(QString::number(legend->rows())));
    for (int i = 0; i < legend->entries().size(); ++i) QCOMPARE(legend->entryRect(i).width(), legend->entryWidth(i));
    for (MetricPlot* plot : window.plots()) {
      const QCustomPlot* custom = plot->customPlot();
      QVERIFY2(custom->axisRect()->outerRect().height() >= 0.8 * custom->height(),
               qPrintable(QString("%1: axes %2 of %3 px").arg(plot->title()).arg(custom->axisRect()->outerRect().height()).arg(custom->height())));
    }
    auto* scroll = window.findChild<QScrollArea*>("plotScroll");
    QVERIFY2(!scroll->verticalScrollBar()->isVisible(), "the four plots do not fit the window");
  }

  // Half a 1920-px screen holds the window, with two runs compared on any tab or page: its
  // least width had been 1182 px (a row of controls on one line, the longest choice of a
  // box, a plot title's whole text each set one). At 960 px the four live plots stay two a
  // row, and no control shown reaches past the window's edge. (A narrower window wraps the
  // rows of controls; below 2 x 240 px the plots go one a row.)
  void theWindowFitsHalfAFullHdScreen() {
    constexpr int kHalfScreen = 960;
    MainWindow& window = *m_window;  // the past run and the live run
    QVERIFY(window.runsModel()->rowCount() >= 2);
    window.runsView()->selectAll();
    auto* uncertainty = window.findChild<UncertaintyView*>();
    auto* mistakes = uncertainty->findChild<MistakesView*>();
    window.tabs()->setCurrentWidget(uncertainty);
    uncertainty->pages()->setCurrentWidget(mistakes);
    QTest::qWait(50);  // the layouts' posted requests
    int confusions = 0;  // the compared runs' confusion matrices side by side: the widest page
    for (auto* confusion : mistakes->findChildren<ConfusionMatrixPlot*>()) confusions += confusion->isVisible();
    QCOMPARE(confusions, 2);
    QVERIFY2(window.minimumSizeHint().width() <= kHalfScreen, qPrintable(QString::number(window.minimumSizeHint().width())));
    window.resize(kHalfScreen, 700);
    QTest::qWait(150);
    QCOMPARE(window.width(), kHalfScreen);
    const auto everyControlInside = [&](const QString& where) {
      QCoreApplication::processEvents();
      for (QWidget* control : window.findChildren<QWidget*>()) {
        const bool isControl = qobject_cast<QAbstractButton*>(control) || qobject_cast<QComboBox*>(control) ||
                               qobject_cast<QAbstractSpinBox*>(control) || qobject_cast<QLineEdit*>(control) ||
                               qobject_cast<QSlider*>(control);
        if (!isControl || !control->isVisible() || qobject_cast<QAbstractSpinBox*>(control->parentWidget()) ||
            qobject_cast<QComboBox*>(control->parentWidget()))
          continue;  // a spin box's or an editable box's own line edit is the box's
        const int left = control->mapTo(&window, QPoint(0, 0)).x();
        QVERIFY2(left >= 0 && left + control->width() <= window.width(),
                 qPrintable(QString("%1 '%2' at %3 to %4 px, on %5").arg(control->metaObject()->className())
                                .arg(control->property("text").toString()).arg(left).arg(left + control->width()).arg(where)));
      }
    };
    for (int page = 0; page < uncertainty->pages()->count(); ++page) {
      uncertainty->pages()->setCurrentIndex(page);
      everyControlInside(uncertainty->pages()->tabText(page));
      if (QTest::currentTestFailed()) return;
    }
    QVERIFY(window.grab().save(QDir::current().filePath("window-960x700-confusion.png")));
    for (int tab = window.tabs()->count() - 1; tab >= 0; --tab) {
      window.tabs()->setCurrentIndex(tab);
      everyControlInside(window.tabs()->tabText(tab));
      if (QTest::currentTestFailed()) return;
    }
    window.tabs()->setCurrentIndex(1);
    QTest::qWait(150);
    theEnsembleTabFits(window, /*legendRoom=*/false);
    if (QTest::currentTestFailed()) return;
    window.tabs()->setCurrentIndex(0);
    QCoreApplication::processEvents();
    const QVector<MetricPlot*>& plots = window.plots();
    QCOMPARE(plots[1]->y(), plots[0]->y());
    QVERIFY(plots[2]->y() > plots[0]->y());
    QVERIFY(window.grab().save(QDir::current().filePath("window-960x700.png")));
    window.resize(1400, 900);
  }

  // In a narrow window the Experiment panel can be put away (View > Experiment panel, or its
  // title bar's close button) and brought back: the plots and tabs then take its width, and
  // the window may be as narrow as they are.
  void theExperimentPanelCanBePutAwayAndBroughtBack() {
    MainWindow& window = *m_window;
    window.resize(960, 700);
    QTest::qWait(100);
    auto* dock = window.findChild<QDockWidget*>("experimentDock");
    auto* toggle = window.findChild<QAction*>("experimentPanelAction");
    QVERIFY(dock && toggle && toggle->isCheckable() && toggle->isChecked() && dock->isVisible());
    QVERIFY(dock->features() & QDockWidget::DockWidgetClosable);
    QMenu* view = nullptr;
    for (QAction* menu : window.menuBar()->actions()) {
      if (menu->text() == tr("&View")) view = menu->menu();
    }
    QVERIFY(view && view->actions().contains(toggle));
    const int plotWidth = window.plots()[0]->width();
    const int leastWidth = window.minimumSizeHint().width();
    toggle->trigger();
    QTest::qWait(100);
    QVERIFY(!dock->isVisible() && !toggle->isChecked());
    QVERIFY2(window.plots()[0]->width() > plotWidth + 150,
             qPrintable(QString("%1 px, %2 with the panel").arg(window.plots()[0]->width()).arg(plotWidth)));
    QVERIFY2(window.minimumSizeHint().width() < leastWidth - 300,
             qPrintable(QString("%1 px, %2 with the panel").arg(window.minimumSizeHint().width()).arg(leastWidth)));
    QVERIFY(window.grab().save(QDir::current().filePath("window-960x700-without-panel.png")));
    toggle->trigger();
    QTest::qWait(100);
    QVERIFY(dock->isVisible() && toggle->isChecked());
    QVERIFY(window.form()->isVisible());
    window.resize(1400, 900);
  }

  // The tabs below share the splitter with the live plots, not their height: a tab with plots
  // opens tall enough to read them (at 960x700 a confusion matrix had 127 px), the run list
  // gives the room back, and a height the user drags to is that tab's own, kept across
  // restarts, until a double-click on the splitter's handle makes it automatic again.
  void eachTabBelowHasItsOwnHeight() {
    MainWindow& window = *m_window;
    window.resize(960, 700);
    window.runsView()->selectAll();
    QTest::qWait(150);
    auto* splitter = window.findChild<QSplitter*>("plotsAndTabs");
    auto* uncertainty = window.uncertaintyView();
    QVERIFY(splitter && splitter->count() == 2);
    const auto tabsHeight = [&] { return splitter->sizes().back(); };
    const int total = splitter->sizes().front() + splitter->sizes().back();
    const int largest = int(total * TabPaneHeights::kLargestAutomaticShare);
    const auto tallestPlot = [&] {
      int tallest = 0;
      for (auto* plot : window.tabs()->currentWidget()->findChildren<QCustomPlot*>()) {
        if (plot->isVisible()) tallest = std::max(tallest, plot->height());
      }
      return tallest;
    };
    window.tabs()->setCurrentWidget(window.runsView());
    QTest::qWait(50);
    const int runsHeight = tabsHeight();
    // Two fifths, unless the tabs' least height (their tallest page's controls) is more.
    const int runsShare = std::max(int(total * TabPaneHeights::kDefaultShare), window.tabs()->minimumSizeHint().height());
    QVERIFY2(qAbs(runsHeight - runsShare) <= 2, qPrintable(QString("%1 of %2 px").arg(runsHeight).arg(total)));
    window.tabs()->setCurrentWidget(uncertainty);
    for (int page = 0; page < uncertainty->pages()->count(); ++page) {
      uncertainty->pages()->setCurrentIndex(page);
      QTest::qWait(50);
      const QString where = QString("%1: plot %2 px, tabs %3 of %4 px")
                                .arg(uncertainty->pages()->tabText(page)).arg(tallestPlot()).arg(tabsHeight()).arg(total);
      // Readable, or as tall as the tabs may be made without asking (the live plots keep a third).
      QVERIFY2(tallestPlot() >= TabPaneHeights::kReadablePlotHeight || tabsHeight() >= largest - 2, qPrintable(where));
      QVERIFY2(tallestPlot() >= 150 && tabsHeight() <= largest + 2, qPrintable(where));
    }
    QVERIFY(window.grab().save(QDir::current().filePath("window-960x700-uncertainty.png")));
    const int automaticHeight = tabsHeight();
    window.tabs()->setCurrentWidget(window.runsView());
    QTest::qWait(50);
    QVERIFY2(qAbs(tabsHeight() - runsHeight) <= 2, qPrintable(QString::number(tabsHeight())));

    // The user drags the handle 100 px down on the Uncertainty tab: that height is the tab's.
    window.tabs()->setCurrentWidget(uncertainty);
    QTest::qWait(50);
    QSplitterHandle* handle = splitter->handle(1);
    const QPoint grip = handle->rect().center();
    const auto send = [&](QEvent::Type type, QPoint at, Qt::MouseButton button, Qt::MouseButtons held) {
      QMouseEvent event(type, at, handle->mapToGlobal(at), button, held, Qt::NoModifier);
      QApplication::sendEvent(handle, &event);
    };
    send(QEvent::MouseButtonPress, grip, Qt::LeftButton, Qt::LeftButton);
    send(QEvent::MouseMove, grip + QPoint(0, 100), Qt::NoButton, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, grip + QPoint(0, 100), Qt::LeftButton, Qt::NoButton);
    const int draggedHeight = tabsHeight();
    QVERIFY2(qAbs(draggedHeight - (automaticHeight - 100)) <= 2, qPrintable(QString::number(draggedHeight)));
    window.tabs()->setCurrentWidget(window.runsView());
    QTest::qWait(50);
    QVERIFY(qAbs(tabsHeight() - runsHeight) <= 2);
    window.tabs()->setCurrentWidget(uncertainty);
    QTest::qWait(50);
    QVERIFY2(qAbs(tabsHeight() - draggedHeight) <= 2, qPrintable(QString::number(tabsHeight())));
    {
      MainWindow reopened(m_root.path());
      reopened.resize(960, 700);
      reopened.show();
      QVERIFY(QTest::qWaitForWindowExposed(&reopened));
      reopened.tabs()->setCurrentWidget(reopened.uncertaintyView());
      QTest::qWait(100);
      auto* reopenedSplitter = reopened.findChild<QSplitter*>("plotsAndTabs");
      QVERIFY2(qAbs(reopenedSplitter->sizes().back() - draggedHeight) <= 3,
               qPrintable(QString("%1 px after a restart, %2 dragged").arg(reopenedSplitter->sizes().back()).arg(draggedHeight)));
    }
    QTest::mouseDClick(handle, Qt::LeftButton, Qt::NoModifier, grip);
    QTest::qWait(50);
    QVERIFY2(qAbs(tabsHeight() - automaticHeight) <= 2, qPrintable(QString::number(tabsHeight())));

    // Only the shown page holds the tabs' least height: the run list's pane can be dragged
    // shorter than the Uncertainty tab needs (a QTabWidget takes its tallest page's minimum,
    // which had held the run list at 281 px), and that tab still gets what it needs.
    const int uncertaintyLeast = window.tabs()->minimumSizeHint().height();
    window.tabs()->setCurrentWidget(window.runsView());
    QTest::qWait(50);
    const int runsLeast = window.tabs()->minimumSizeHint().height();
    QVERIFY2(runsLeast < uncertaintyLeast - 50, qPrintable(QString("%1 vs %2 px").arg(runsLeast).arg(uncertaintyLeast)));
    const int down = tabsHeight() - (runsLeast + 30);  // to just above the run list's least height
    send(QEvent::MouseButtonPress, grip, Qt::LeftButton, Qt::LeftButton);
    send(QEvent::MouseMove, grip + QPoint(0, down), Qt::NoButton, Qt::LeftButton);
    send(QEvent::MouseButtonRelease, grip + QPoint(0, down), Qt::LeftButton, Qt::NoButton);
    QVERIFY2(tabsHeight() < uncertaintyLeast && tabsHeight() >= runsLeast,
             qPrintable(QString("%1 px, least %2, the Uncertainty tab's %3").arg(tabsHeight()).arg(runsLeast).arg(uncertaintyLeast)));
    window.tabs()->setCurrentWidget(uncertainty);
    QTest::qWait(50);
    QVERIFY2(tabsHeight() >= uncertaintyLeast, qPrintable(QString::number(tabsHeight())));
    window.tabs()->setCurrentWidget(window.runsView());
    QTest::qWait(50);
    QTest::mouseDClick(handle, Qt::LeftButton, Qt::NoModifier, grip);
    QTest::qWait(50);
    QVERIFY2(qAbs(tabsHeight() - runsHeight) <= 2, qPrintable(QString::number(tabsHeight())));
    window.resize(1400, 900);
  }

  // A window 700 px tall cannot hold four plots at their minimum size above the tabs: they
  // scroll, and each can be seen whole, axes included. (Their minimum had held the window at
  // 823 px, and a window manager that made it smaller cut them off below their x axes.)
  void atASmallWindowEveryPlotCanBeSeenWhole() {
    MainWindow& window = *m_window;
    window.resize(1024, 700);
    window.runsView()->selectAll();
    QTest::qWait(150);
    QCOMPARE(window.height(), 700);  // the plots' minimum held it at 823 (a smaller one was cut)
    auto* scroll = window.findChild<QScrollArea*>("plotScroll");
    for (MetricPlot* plot : window.plots()) {
      if (scroll) scroll->ensureWidgetVisible(plot, 0, 0);
      QCoreApplication::processEvents();
      // What of the plot its ancestors leave uncut (visibleRegion needs an exposed window).
      QRect shown = plot->rect();
      for (QWidget* widget = plot; widget->parentWidget(); widget = widget->parentWidget()) {
        shown = shown.translated(widget->pos()) & widget->parentWidget()->rect();
      }
      QVERIFY2(shown.size() == plot->size(),
               qPrintable(plot->title() + QString(": %1 of %2 px tall shown").arg(shown.height()).arg(plot->height())));
      QVERIFY(plot->height() >= plot->minimumHeight());
    }
    QVERIFY(window.grab().save(QDir::current().filePath("window-1024x700.png")));
    window.resize(1400, 900);
  }

  // An empty plot's hint is broken into lines that fit it at a small window (one line of it
  // ran over the axis labels and off both edges at 1100x700); what it says is unchanged.
  void anEmptyPlotsHintFitsItsPlot() {
    QTemporaryDir root;
    MainWindow window(root.path());
    window.resize(1024, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::qWait(100);
    for (MetricPlot* plot : window.plots()) {
      QCustomPlot* custom = plot->customPlot();
      custom->replot();
      const auto* hint = custom->findChild<QCPItemText*>("plotHint");
      QVERIFY(hint && hint->visible());
      QVERIFY2(plot->emptyHint() == "No run shown: select runs in the Runs tab, or start one", qPrintable(plot->emptyHint()));
      const QFontMetricsF metrics(hint->font());
      QVERIFY2(hint->text().contains('\n'), qPrintable(QString("%1 px wide, one line").arg(custom->width())));
      for (const QString& line : hint->text().split('\n')) {
        QVERIFY2(metrics.horizontalAdvance(line) <= custom->width() - 60,
                 qPrintable(QString("'%1' in %2 px").arg(line).arg(custom->width())));
      }
    }
  }

  void theSmoothingOutlivesTheWindow() {
    {
      PlotPanel first;
      first.smoothingSlider()->setValue(25);
    }
    PlotPanel second;  // as the next window's
    QCOMPARE(second.smoothingSlider()->value(), 25);
    second.smoothingSlider()->setValue(0);
  }

  void plotsExportToPngPdfAndSvg() {
    QDir out(m_root.filePath("exports"));
    QVERIFY(out.mkpath("."));
    QCustomPlot* accuracyPlot = m_window->plots()[3]->customPlot();
    const int width = std::max(accuracyPlot->width(), 640), height = std::max(accuracyPlot->height(), 420);
    for (const QString suffix : {"png", "pdf", "svg"}) {
      const QString path = out.filePath("test-accuracy." + suffix);
      QVERIFY2(exportPlot(accuracyPlot, path).isEmpty(), qPrintable(path));
      QVERIFY(QFileInfo(path).size() > 1000);
    }
    QImage png(out.filePath("test-accuracy.png"));
    QCOMPARE(png.size(), QSize(2 * width, 2 * height));  // exported at twice the screen size
    QFile pdf(out.filePath("test-accuracy.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    const QByteArray pdfBytes = pdf.readAll();
    QVERIFY(pdfBytes.startsWith("%PDF-"));
    QVERIFY(pdfBytes.trimmed().endsWith("%%EOF"));
    QFile svg(out.filePath("test-accuracy.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    QVERIFY(xml.readNextStartElement());
    QCOMPARE(xml.name().toString(), QString("svg"));
    QCOMPARE(xml.attributes().value("viewBox").toString(), QString("0 0 %1 %2").arg(width).arg(height));
    while (!xml.atEnd()) xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));

    // With the caption: each run's setup under the plot, the legend named, in the SVG's
    // text (where a paper takes it from); the window's plot is left as it was.
    auto* exporter = m_window->findChild<ExportActions*>();
    QVERIFY(exporter);
    const QString caption = exporter->captionFor(*m_window->plots()[3]);
    const QString live = QFileInfo(QString::fromStdString(m_liveRun.runDirectory)).fileName();
    // The run's short name and its folder, its setup, and the sample limits (a 1,024-image
    // run must not read as a full one).
    // (The learning rate is the form's, which tests running beside this one may have saved.)
    QVERIFY2(caption.contains(QRegularExpression("ensemble ×3 · lr [0-9.]+ · 1024 imgs \\(" + live +
                                                 "\\): synthetic · cnn · ensemble · cpu\\*3 · fp32 · lr ")) &&
                 caption.endsWith("· batch 64 · 1024 training images"),
             qPrintable(caption));
    const int rows = accuracyPlot->plotLayout()->rowCount();
    QVERIFY(m_window->plots()[3]->exportTo(out.filePath("captioned.svg"), caption).isEmpty());  // File > Export plot's
    QCOMPARE(accuracyPlot->plotLayout()->rowCount(), rows);
    QVERIFY(!accuracyPlot->legend->visible());  // the window's one legend names the lines on screen
    QFile captioned(out.filePath("captioned.svg"));
    QVERIFY(captioned.open(QIODevice::ReadOnly));
    const QString svgText = QString::fromUtf8(captioned.readAll());
    QVERIFY(svgText.contains("batch 64"));
    // The file's own legend names the members' lines (the caption does not).
    QVERIFY(!caption.contains("member"));
    QVERIFY(svgText.contains("member"));
    QVERIFY(!QString::fromUtf8(fileBytes(out.filePath("test-accuracy.svg"))).contains("batch 64"));
  }

  // File > Export plot's caption fits the image: its lines are broken to the 640-px canvas
  // (one line, centred, had run 47 px past both edges and lost the run's name), each piece
  // of it drawn whole inside the SVG's view box and no ink at the PNG's left and right edges.
  void anExportedCaptionFitsTheImage() {
    QDir out(m_root.filePath("captions"));
    QVERIFY(out.mkpath("."));
    MetricPlot* plot = m_window->plots()[3];
    auto* exporter = m_window->findChild<ExportActions*>();
    QVERIFY(exporter);
    const QString caption = exporter->captionFor(*plot);
    const QString live = QFileInfo(QString::fromStdString(m_liveRun.runDirectory)).fileName();
    QVERIFY2(caption.contains(live), qPrintable(caption));
    const QString svgPath = out.filePath("captioned.svg");
    QVERIFY(plot->exportTo(svgPath, caption).isEmpty());
    QFile svg(svgPath);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    double viewWidth = 0;
    QStringList captionLines;
    while (!xml.atEnd()) {
      if (xml.readNext() != QXmlStreamReader::StartElement) continue;
      if (xml.name() == QLatin1String("svg")) viewWidth = xml.attributes().value("viewBox").toString().split(' ')[2].toDouble();
      if (xml.name() != QLatin1String("text")) continue;
      const QXmlStreamAttributes attributes = xml.attributes();
      const double x = attributes.value("x").toDouble();
      QFont font(attributes.value("font-family").toString());
      font.setPixelSize(qRound(attributes.value("font-size").toDouble()));
      // The caption's grey (the legend names runs as the caption does, in black).
      if (attributes.value("fill") != QLatin1String("#505050")) continue;
      const QString text = xml.readElementText();
      captionLines << text;
      const double right = x + QFontMetricsF(font).horizontalAdvance(text);
      QVERIFY2(x >= 0 && right <= viewWidth, qPrintable(QString("'%1' spans x %2 to %3 of %4").arg(text).arg(x).arg(right).arg(viewWidth)));
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(viewWidth >= 640);
    QVERIFY2(captionLines.size() > 1, qPrintable(captionLines.join('|')));  // broken, not shrunk
    // Every word of it, each run's name and folder among them (a line per run selected).
    QCOMPARE(captionLines.join(' '), QString(caption).replace('\n', ' '));

    const QString pngPath = out.filePath("captioned.png");
    QVERIFY(plot->exportTo(pngPath, caption).isEmpty());
    const QImage png = QImage(pngPath).convertToFormat(QImage::Format_RGB32);
    QVERIFY(!png.isNull());
    png.save(QDir::current().filePath("exported-caption.png"));  // kept in the build folder, to look at
    QFile::remove(QDir::current().filePath("exported-caption.svg"));
    QFile::copy(svgPath, QDir::current().filePath("exported-caption.svg"));
    for (const int x : {0, 1, 2, png.width() - 3, png.width() - 2, png.width() - 1}) {
      for (int y = 0; y < png.height(); ++y) {
        QVERIFY2(qGray(png.pixel(x, y)) > 200, qPrintable(QString("ink at the edge: (%1, %2)").arg(x).arg(y)));
      }
    }
  }

  // A message that quotes what the user typed wraps (or, on the one-line status bar, ends
  // in "…" with the whole in its tooltip) and leaves the window its width: a bad path typed
  // in the out-of-distribution box had made the window 62 px wider than its 1400, pushing
  // the page's Export… button off the edge, and it stayed wider.
  void aLongMessageLeavesTheWindowItsWidth() {
    MainWindow window(m_root.path());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.runsView()->selectRow(0);  // a run to score: Compute then says what is wrong
    auto* uncertainty = window.findChild<UncertaintyView*>();
    QVERIFY(uncertainty);
    window.tabs()->setCurrentWidget(uncertainty);
    OodView* ood = uncertainty->outOfDistribution();
    uncertainty->pages()->setCurrentWidget(ood);
    QTest::qWait(50);
    QCOMPARE(window.width(), 1400);
    const QString path = "/nonexistent/" + QString("a-folder-name-without-a-space-").repeated(8) + "foo";
    const auto settled = [&] {
      QCoreApplication::processEvents();
      QTest::qWait(50);  // the layouts' posted requests
      QCOMPARE(window.width(), 1400);
      QVERIFY2(window.minimumSizeHint().width() <= 1400, qPrintable(QString::number(window.minimumSizeHint().width())));
    };
    ood->datasetBox()->setCurrentText(path);
    QVERIFY2(ood->description()->text().contains(path), qPrintable(ood->description()->text()));
    settled();
    if (QTest::currentTestFailed()) return;
    QToolButton* exportButton = nullptr;
    for (auto* button : ood->findChildren<QToolButton*>()) {
      if (button->text() == tr("Export…")) exportButton = button;
    }
    QVERIFY(exportButton && exportButton->isVisible());
    QVERIFY(exportButton->mapTo(&window, QPoint(exportButton->width(), 0)).x() <= window.width());
    // Wrapped onto lines of its width, each drawn within it (a QLabel cut a word this long).
    QVERIFY(ood->description()->height() >= 2 * ood->description()->fontMetrics().height());
    QVERIFY(ood->description()->width() <= ood->width());
    QVERIFY(window.grab().save(QDir::current().filePath("window-long-ood-message.png")));
    // Compute says the same in the line under the plot.
    ood->compute();
    QVERIFY(ood->memberScores()->text().contains(path));
    settled();
    // The status bar's line: one line, elided, the whole in its tooltip.
    auto* status = window.findChild<RunStatusLine*>();
    QVERIFY(status);
    status->setText(tr("Cannot show %1: %2").arg(path, path));
    settled();
    QCOMPARE(window.statusText(), tr("Cannot show %1: %2").arg(path, path));
    auto* line = qobject_cast<QLabel*>(window.statusBar()->findChild<ElidedLabel*>());
    QVERIFY(line);
    QVERIFY2(line->text().endsWith(QChar(0x2026)), qPrintable(line->text()));
    QCOMPARE(line->toolTip(), window.statusText());
    // A field's reason under it, the value typed quoted in it: the dock keeps its width.
    QLineEdit* lr = window.form()->learningRateEdit();
    lr->setText("-" + QString("5").repeated(200));
    auto* reason = window.form()->findChild<QLabel*>("error-lr");
    QVERIFY(reason && reason->isVisible());
    settled();
    QVERIFY(window.grab().save(QDir::current().filePath("window-long-field-message.png")));
    lr->setText("0.05");
    ood->datasetBox()->setCurrentText("inverted");  // as the next tests expect it
  }

  void metricsAndCheckpointsExport() {
    QDir out(m_root.filePath("exports"));
    QVERIFY(out.mkpath("."));
    const QString run = m_window->runsModel()->record(0).directory;
    QVERIFY(ExportActions::exportMetrics(run, out.filePath("m.csv")).isEmpty());
    QCOMPARE(fileBytes(out.filePath("m.csv")), fileBytes(QString::fromStdString(m_liveRun.runDirectory) + "/metrics.csv"));
    QVERIFY(ExportActions::exportMetrics(run, out.filePath("m.json")).isEmpty());
    QFile json(out.filePath("m.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(doc["curves"].toObject()["ensemble"].toObject()["test_accuracy"].toArray().size(), 2);
    QVERIFY(ExportActions::exportCheckpoint(run, out.path()).isEmpty());
    QVERIFY(!QDir(out.path()).entryList({"*-step-*"}, QDir::Dirs).isEmpty());
    // Both runs at once: a table row each, and the curves beside it.
    const QStringList both{m_window->runsModel()->record(0).directory, m_window->runsModel()->record(1).directory};
    QVERIFY(ExportActions::exportRuns(both, out.filePath("runs.csv")).isEmpty());
    QFile table(out.filePath("runs.csv")), curves(out.filePath("runs-curves.csv"));
    QVERIFY(table.open(QIODevice::ReadOnly) && curves.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(table.readAll()).count('\n'), 3);
    const QString longForm = QString::fromUtf8(curves.readAll());
    QVERIFY(longForm.startsWith("run,model,step,epoch,metric,value\n"));
    for (const QString& run : both) QVERIFY(longForm.contains("\n" + QFileInfo(run).fileName() + ","));
    // (run, model, step, metric) names one value: an epoch's means are metrics of their own,
    // beside the last logging window of the epoch at the same step.
    QSet<QString> keys;
    for (const QString& line : longForm.split('\n', Qt::SkipEmptyParts).mid(1)) {
      const QStringList f = line.split(',');
      const QString key = QStringList{f[0], f[1], f[2], f[4]}.join(',');
      QVERIFY2(!keys.contains(key), qPrintable("duplicate key " + key));
      keys.insert(key);
    }
    QVERIFY(longForm.contains(",train_loss_epoch_mean,"));
    QVERIFY(longForm.contains(",train_loss,"));
    QVERIFY(!ExportActions::exportRuns({m_root.filePath("no-such-run")}, out.filePath("none.csv")).isEmpty());
    QVERIFY(!QFileInfo::exists(out.filePath("none.csv")));
    // A run that cannot be read among others is left out and named, with what to do; the
    // others are written (one damaged run had cost the whole table).
    QTemporaryDir damaged;
    QVERIFY(QDir().mkpath(damaged.filePath("20260101-000000000-single-cnn/checkpoints/latest")));
    QFile summary(damaged.filePath("20260101-000000000-single-cnn/summary.json"));  // its config.json lost
    QVERIFY(summary.open(QIODevice::WriteOnly) && summary.write(fileBytes(both[0] + "/summary.json")) > 0);
    summary.close();
    const QString left = ExportActions::exportRuns(both + QStringList{damaged.filePath("20260101-000000000-single-cnn")},
                                                   out.filePath("three.csv"));
    QVERIFY2(left.contains("left out:\n20260101-000000000-single-cnn: ") && left.contains("config.json is missing") &&
                 left.contains("\n  and ") && left.contains("metrics.csv is missing") && left.contains("Resume") &&
                 left.count("single-cnn: ") == 1,
             qPrintable(left));
    QCOMPARE(fileBytes(out.filePath("three.csv")).count('\n'), 3);  // the header and both readable runs
  }

  // What an export says of itself ("Saved PATH") is said briefly over the status line; the
  // line under it is kept up to date meanwhile and comes back, and a new state ends it.
  void aSavedFileIsSaidBrieflyAndTheLineComesBack() {
    auto* status = m_window->findChild<RunStatusLine*>();
    auto* exports = m_window->findChild<ExportActions*>();
    QVERIFY(status && exports);
    const QString before = status->lastingText();
    QVERIFY(!before.isEmpty());
    emit exports->saved("Saved /tmp/plot.png");
    QCOMPARE(m_window->statusText(), QString("Saved /tmp/plot.png"));
    QCOMPARE(status->lastingText(), before);
    status->setText(before);  // ends it: the tests after this one read the line as it was
    QCOMPARE(m_window->statusText(), before);
    // The line itself, with a brief time a test can wait for.
    QStatusBar bar;
    RunStatusLine line(&bar, std::chrono::milliseconds(200));
    line.setText("Run finished: A");
    line.sayBriefly("Saved /tmp/plot.png");
    line.updateText("Epoch 1/2 · step 3/9");  // a run's progress goes on under it
    QCOMPARE(line.text(), QString("Saved /tmp/plot.png"));
    QCOMPARE(line.lastingText(), QString("Epoch 1/2 · step 3/9"));
    QTRY_COMPARE(line.text(), QString("Epoch 1/2 · step 3/9"));
    line.sayBriefly("Saved /tmp/b.png");
    line.setText("Stopped at step 4");  // a new state, shown at once
    QCOMPARE(line.text(), QString("Stopped at step 4"));
    line.updateText("Ready. 2 runs in /tmp");  // and what follows it too: no brief message is left
    QCOMPARE(line.text(), QString("Ready. 2 runs in /tmp"));
  }

  // Each export is offered only for a run it can act on, and says why not: an unreadable
  // run's exports had been enabled and failed after the file dialog with errno text.
  void exportsAreOfferedOnlyForWhatTheRunHas() {
    QTemporaryDir root;
    const auto makeRun = [&](const QString& name, const QByteArray& config, bool metrics, bool checkpoints) {
      QDir run(root.filePath(name));
      run.mkpath(checkpoints ? "checkpoints" : ".");
      QFile configFile(run.filePath("config.json"));
      configFile.open(QIODevice::WriteOnly);
      configFile.write(config);
      if (metrics) QFile::copy(m_root.filePath("20260101-000000000-single-cnn/metrics.csv"), run.filePath("metrics.csv"));
      return run.path();
    };
    const QByteArray good = fileBytes(m_root.filePath("20260101-000000000-single-cnn/config.json"));
    const QString junk = makeRun("20260103-000000000-junk", "{bad", false, false);
    const QString started = makeRun("20260102-000000000-started", good, true, false);
    const QString whole = makeRun("20260101-000000000-whole", good, true, true);
    MainWindow window(root.path());
    auto* exporter = window.findChild<ExportActions*>();
    auto* view = static_cast<RunListView*>(window.runsView());
    const auto select = [&](const QStringList& runs) {
      view->clearSelection();
      for (const QString& run : runs) {
        view->selectionModel()->select(window.runsModel()->index(window.runsModel()->rowOf(run), 0),
                                       QItemSelectionModel::Select | QItemSelectionModel::Rows);
      }
    };
    select({whole});
    QVERIFY(exporter->metricsAction()->isEnabled() && exporter->checkpointAction()->isEnabled());
    QVERIFY(exporter->runsAction()->isEnabled() && exporter->plotAction()->isEnabled());
    select({started});
    QVERIFY(exporter->metricsAction()->isEnabled());
    QVERIFY(!exporter->checkpointAction()->isEnabled());
    QVERIFY2(exporter->checkpointAction()->toolTip().contains("no checkpoint"), qPrintable(exporter->checkpointAction()->toolTip()));
    select({junk});
    // The empty reliability diagram says why (it was blank).
    QVERIFY2(window.reliabilityDiagram()->emptyHint().contains("Cannot read 20260103-000000000-junk"),
             qPrintable(window.reliabilityDiagram()->emptyHint()));
    QVERIFY(!exporter->metricsAction()->isEnabled() && !exporter->checkpointAction()->isEnabled());
    QVERIFY(!exporter->runsAction()->isEnabled());
    QVERIFY2(exporter->metricsAction()->toolTip().contains("no metrics.csv"), qPrintable(exporter->metricsAction()->toolTip()));
    select({whole, junk});  // one unreadable run keeps the table from being written
    QVERIFY(!exporter->runsAction()->isEnabled());
    QVERIFY2(exporter->runsAction()->toolTip().contains("20260103-000000000-junk"), qPrintable(exporter->runsAction()->toolTip()));
    select({whole, started});
    QVERIFY(exporter->runsAction()->isEnabled());

    // Metrics and checkpoints of several runs: of each that has them, the menu says how many.
    QCOMPARE(exporter->metricsAction()->text(), QString("Export &metrics of 2 runs…"));
    QCOMPARE(exporter->checkpointAction()->text(), QString("Export &checkpoints of 1 run…"));
    QVERIFY2(exporter->checkpointAction()->toolTip().contains("20260102-000000000-started has none yet"),
             qPrintable(exporter->checkpointAction()->toolTip()));
    QTemporaryDir exports;
    QCOMPARE(ExportActions::exportMetricsInto({whole, started}, exports.path()), QString());
    for (const QString& run : {whole, started}) {
      QCOMPARE(fileBytes(exports.filePath(QFileInfo(run).fileName() + ".csv")), fileBytes(run + "/metrics.csv"));
    }
    // A run that cannot be exported is named, and the others go on.
    const QStringList failures = ExportActions::exportCheckpointsInto({started, whole}, exports.path()).split('\n');
    QCOMPARE(failures.size(), 2);
    QVERIFY2(failures[0].startsWith("20260102-000000000-started: ") && failures[1].startsWith("20260101-000000000-whole: "),
             qPrintable(failures.join('\n')));
    select({junk, started});
    QCOMPARE(exporter->metricsAction()->text(), QString("Export &metrics of 1 run…"));
    QVERIFY(!exporter->checkpointAction()->isEnabled());
    QVERIFY2(exporter->checkpointAction()->toolTip().contains("None of the selected runs"),
             qPrintable(exporter->checkpointAction()->toolTip()));
    select({whole, started});
    QVERIFY2(window.reliabilityDiagram()->emptyHint().contains("no test evaluation yet"),
             qPrintable(window.reliabilityDiagram()->emptyHint()));
    view->clearSelection();
    QVERIFY(window.reliabilityDiagram()->emptyHint().startsWith("Select a run"));
  }

  // A selected run whose metrics.csv cannot be read: the empty plots name it (they said that
  // nothing was selected), and the status line's reason goes once it is no longer selected.
  void anUnreadableRunIsNamedOnTheEmptyPlots() {
    QTemporaryDir root;
    const QString past = m_root.filePath("20260101-000000000-single-cnn");
    const auto copyRun = [&](const QString& name, const QByteArray& metrics) {
      QDir run(root.filePath(name));
      run.mkpath(".");
      for (const QString file : {"config.json", "summary.json"}) QFile::copy(past + "/" + file, run.filePath(file));
      QFile csv(run.filePath("metrics.csv"));
      csv.open(QIODevice::WriteOnly);
      csv.write(metrics.isNull() ? fileBytes(past + "/metrics.csv") : metrics);
      return run.path();
    };
    const QString garbage = copyRun("20260102-000000000-garbage", "\x01\x02not,a\ncsv at all\n");
    const QString good = copyRun("20260101-000000000-good", QByteArray());
    MainWindow window(root.path());
    window.runsView()->selectRow(window.runsModel()->rowOf(garbage));
    for (MetricPlot* plot : window.plots()) {
      QVERIFY2(plot->emptyHint().startsWith("Cannot read 20260102-000000000-garbage: "), qPrintable(plot->emptyHint()));
    }
    QVERIFY2(window.statusText().startsWith("Cannot read 20260102-000000000-garbage"), qPrintable(window.statusText()));
    window.runsView()->selectRow(window.runsModel()->rowOf(good));
    QVERIFY(window.plots().front()->emptyHint().isEmpty());  // its curves are drawn
    QVERIFY2(!window.statusText().contains("garbage"), qPrintable(window.statusText()));
  }

  // The run menu acts on the run under the pointer, and Delete's question names it: a
  // right-click below the rows had opened the menu of the selected run, out of sight, and
  // the question had said only "Delete 1 run folder(s)".
  void theRunMenuActsOnTheRunUnderThePointer() {
    QTemporaryDir root;
    QVERIFY(copyPastRunAsFirstAndSecond(root.path()));
    MainWindow window(root.path());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.runsView());
    auto* view = static_cast<RunListView*>(window.runsView());
    const int second = window.runsModel()->rowOf(root.filePath("20260102-000000000-second"));
    const int first = window.runsModel()->rowOf(root.filePath("20260101-000000000-first"));
    view->selectRow(second);
    // Whatever popup or question opens is read, then closed.
    QString popup;
    const auto closeWhatOpens = [&popup] {
      QTimer::singleShot(200, [&popup] {
        if (QWidget* menu = QApplication::activePopupWidget()) {
          popup = "menu";
          menu->close();
        } else if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
          popup = box->text();
          box->reject();
        }
      });
    };
    closeWhatOpens();
    emit view->customContextMenuRequested(view->visualRect(window.runsModel()->index(first, 1)).center());
    QCOMPARE(popup, QString("menu"));
    QCOMPARE(view->selectedRows(), QVector<int>({first}));  // the row under the pointer
    popup.clear();
    closeWhatOpens();
    emit view->customContextMenuRequested(QPoint(5, view->viewport()->height() - 3));  // below the rows
    QTest::qWait(300);
    QCOMPARE(popup, QString());
    QCOMPARE(view->selectedRows(), QVector<int>({first}));
    closeWhatOpens();
    view->findChild<QAction*>("deleteAction")->trigger();
    QVERIFY2(popup.contains("20260101-000000000-first") && !popup.contains("second"), qPrintable(popup));
    QVERIFY(QFileInfo::exists(root.filePath("20260101-000000000-first/metrics.csv")));  // answered No
  }

  // The window opens within its screen: a size saved on a larger one is cut to this screen's
  // room, not shrunk by Qt to two thirds of it (853x480 on 1280x720), nor left over its edges.
  void theWindowOpensWithinItsScreen() {
    QSettings settings;
    settings.setValue("window/size", QSize(5000, 3000));
    auto forget = qScopeGuard([] { QSettings().remove("window/size"); });
    MainWindow window(m_root.path());
    const QSize room = window.screen()->availableGeometry().size();
    QVERIFY2(window.width() <= room.width() && window.height() <= room.height() &&
                 window.width() > room.width() * 9 / 10 && window.height() > room.height() * 9 / 10,
             qPrintable(QString("%1x%2 on a screen with %3x%4").arg(window.width()).arg(window.height())
                            .arg(room.width()).arg(room.height())));
  }

  // Rename says what is wrong with a name: a hidden one (the list leaves such folders out: the
  // run had vanished from the window for good), a taken one, and the system's own reason (a
  // name too long had been asked "does it exist already?"). Delete's question defaults to No,
  // and Tab leaves the list instead of walking its cells, selecting each row it passes.
  void theRunFolderActionsSayWhatTheyCannotDo() {
    QTemporaryDir root;
    QVERIFY(copyPastRunAsFirstAndSecond(root.path()));
    MainWindow window(root.path());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.runsView());
    auto* view = static_cast<RunListView*>(window.runsView());
    const QString first = root.filePath("20260101-000000000-first");
    const auto renameTo = [&](const QString& name) {
      view->selectRow(window.runsModel()->rowOf(first));
      QTimer::singleShot(200, [name] {
        if (auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget())) {
          dialog->setTextValue(name);
          dialog->accept();
        }
      });
      view->findChild<QAction*>("renameAction")->trigger();
      QMessageBox* box = nullptr;
      (void)QTest::qWaitFor([&] { return (box = window.findChild<QMessageBox*>("errorMessage")) != nullptr; }, 5000);
      if (!box) return QString("(no message)");
      const QString text = box->text();
      delete box;
      return text;
    };
    QCOMPARE(renameTo(".hidden"), QString("A run name cannot start with '.': such a folder is hidden, and the runs list "
                                          "leaves it out."));
    QCOMPARE(renameTo("20260102-000000000-second"),
             QString("Something named 20260102-000000000-second exists already in the runs folder."));
    const QString tooLong = renameTo(QString(300, 'x'));
    QVERIFY2(tooLong.contains("Could not rename 20260101-000000000-first: File name too long"), qPrintable(tooLong));
    QVERIFY(QFileInfo::exists(first + "/summary.json") && !QFileInfo::exists(root.filePath(".hidden")));

    QString asked;
    QTimer::singleShot(200, [&asked] {
      if (auto* question = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        asked = question->text();
        QTest::keyClick(question, Qt::Key_Return);  // a stray Enter
      }
    });
    view->selectRow(window.runsModel()->rowOf(first));
    view->findChild<QAction*>("deleteAction")->trigger();
    QVERIFY2(asked.contains("20260101-000000000-first"), qPrintable(asked));
    QVERIFY(QFileInfo::exists(first + "/summary.json"));
    QVERIFY(window.runsModel()->rowOf(first) >= 0);

    const QVector<int> selected = view->selectedRows();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    view->setFocus();
    QTRY_VERIFY(view->hasFocus());
    QTest::keyClick(view, Qt::Key_Tab);
    QTRY_VERIFY(!view->hasFocus());
    QCOMPARE(view->selectedRows(), selected);
  }

  // A run another process trains (the CLI, a sweep) appears in the open window, its row and
  // selected curves follow what that process writes, and it goes once its folder is deleted.
  void runsWrittenElsewhereAppearAndFollowTheirFolders() {
    QTemporaryDir root;
    MainWindow window(root.path());
    QCOMPARE(window.runsModel()->rowCount(), 0);
    QCOMPARE(window.statusText(), "Ready. 0 runs in " + root.path());
    // The engine, in a thread of its own as in another process, held after its first epoch
    // until the window has shown it.
    struct HeldAfterFirstEpoch final : TrainingObserver {
      std::atomic<bool> go{false};
      void onEpoch(const EpochEvent& event) override {
        while (event.epoch == 1 && !go) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    } gate;
    const ExperimentConfig config = pastRunConfig();
    const QString run = root.filePath("20260105-000000000-single-cnn");
    RunFinishedEvent finished;
    std::thread elsewhere([&] { finished = Trainer::create(config, run.toStdString())->run(&gate, nullptr); });
    auto releaseAndJoin = qScopeGuard([&] {
      gate.go = true;
      elsewhere.join();
    });
    RunsModel& runs = *window.runsModel();
    QTRY_VERIFY_WITH_TIMEOUT(runs.rowOf(run) >= 0 && runs.data(runs.index(runs.rowOf(run), RunsModel::Epochs), Qt::DisplayRole).toString() == "1/2",
                             60000);
    QTRY_COMPARE(window.statusText(), "Ready. 1 run in " + root.path());  // the count follows the folder
    // Its process holds the run (RunWriterLock): it says so, and cannot be resumed meanwhile.
    QTRY_COMPARE(runs.data(runs.index(runs.rowOf(run), RunsModel::Status), Qt::DisplayRole).toString(),
                 QString("running elsewhere"));
    window.runsView()->selectRow(runs.rowOf(run));
    QVERIFY(!window.runsView()->findChild<QAction*>("resumeAction")->isEnabled());
    MetricPlot* testAccuracy = window.plots()[3];
    QTRY_COMPARE(testAccuracy->pointsOf(0, 0), 1);
    releaseAndJoin.dismiss();
    gate.go = true;
    elsewhere.join();
    REQUIRE_COMPLETED(finished);
    QTRY_COMPARE(runs.data(runs.index(runs.rowOf(run), RunsModel::Status), Qt::DisplayRole).toString(), QString("completed"));
    QTRY_COMPARE(testAccuracy->pointsOf(0, 0), 2);  // the selected run's plots read it again
    QVERIFY(window.runsView()->selectionModel()->isRowSelected(runs.rowOf(run), {}));
    QVERIFY(QDir(run).removeRecursively());
    QTRY_COMPARE(runs.rowCount(), 0);
    QVERIFY(testAccuracy->emptyHint().startsWith("No run shown"));
    QTRY_COMPARE(window.statusText(), "Ready. 0 runs in " + root.path());
  }

  void screenshotOfTheWindow() {
    // What a person sees (kept in the build folder for review).
    m_window->resize(1400, 900);
    QCoreApplication::processEvents();  // let the plots' queued replots run
    QVERIFY(m_window->grab().save(QDir::current().filePath("main-window.png")));
  }

  void evaluatesASavedRun() {
    MainWindow window(m_root.path());
    quickSetup(window.form());  // the synthetic set, which the past run trained on
    const int row = window.runsModel()->rowOf(m_root.filePath("20260101-000000000-single-cnn"));
    QVERIFY(row >= 0);
    QSignalSpy evaluated(window.controller(), &RunController::evaluationFinished);
    window.evaluateRun(row);
    QVERIFY(evaluated.wait(60000));
    QCOMPARE(evaluated.first().at(2).toString(), QString());
    const auto result = evaluated.first().at(1).value<EvaluationResult>();
    const auto& summary = window.runsModel()->record(row).summary;
    QVERIFY(summary && summary->evaluation);
    QCOMPARE(int(result.members.size()), 1);
    QCOMPARE(result.ensemble.accuracy, summary->evaluation->ensemble.accuracy);
    QCOMPARE(window.memberTable()->rowCount(), 1);
    QVERIFY(window.statusText().contains("Evaluated"));
    QVERIFY(window.startAction()->isEnabled());
  }

  // Evaluated on its own dataset whose test files were replaced since it trained, a run's
  // numbers differ from the list's for that reason alone: the window says so, as eval does.
  void evaluatingARunWhoseTestSetChangedSaysSo() {
    QTemporaryDir root;
    const QString run = root.filePath("20260101-000000000-single-cnn");
    std::filesystem::copy(m_root.filePath("20260101-000000000-single-cnn").toStdString(), run.toStdString(),
                          std::filesystem::copy_options::recursive);
    // The fingerprint it recorded, as if the files it was scored on had other bytes.
    nlohmann::json summary = nlohmann::json::parse(fileBytes(run + "/summary.json").toStdString());
    QVERIFY(summary.contains("test_set_crc32"));
    summary["test_set_crc32"] = "00000000";
    QFile file(run + "/summary.json");
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QByteArray::fromStdString(summary.dump()));
    file.close();
    MainWindow window(root.path());
    quickSetup(window.form());  // the synthetic set, the run's own
    QSignalSpy evaluated(window.controller(), &RunController::evaluationFinished);
    window.evaluateRun(window.runsModel()->rowOf(run));
    QVERIFY(evaluated.wait(60000));
    QVERIFY2(window.statusText().contains("test images or their labels differ from those it was scored on "
                                          "(summary.json's test_set_crc32 00000000, now "),
             qPrintable(window.statusText()));
    QTRY_VERIFY(window.findChild<QMessageBox*>("errorMessage"));
    // The same files it was scored on: no note.
    summary["test_set_crc32"] = evaluated.first().at(1).value<EvaluationResult>().testSetDigest;
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QByteArray::fromStdString(summary.dump()));
    file.close();
    MainWindow again(root.path());
    quickSetup(again.form());
    QSignalSpy evaluatedAgain(again.controller(), &RunController::evaluationFinished);
    again.evaluateRun(again.runsModel()->rowOf(run));
    QVERIFY(evaluatedAgain.wait(60000));
    QVERIFY2(again.statusText().startsWith("Evaluated") && !again.statusText().contains("Note"), qPrintable(again.statusText()));
  }

  void failedRunShowsTheErrorAndTheAppStaysUsable() {
    MainWindow window(m_root.path());
    quickSetup(window.form());
    const char* names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                           "t10k-labels-idx1-ubyte"};
    // A folder of files that are no IDX files is refused when chosen, and stays out of the list.
    QDir notIdx(m_root.filePath("not-idx-dataset"));
    QVERIFY(notIdx.mkpath("."));
    for (const char* name : names) {
      QFile file(notIdx.filePath(name));
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write("this is not an IDX file");
    }
    const QString refused = window.form()->addDatasetFolder(notIdx.path());
    QVERIFY2(refused.contains("is not an IDX file"), qPrintable(refused));
    QCOMPARE(window.form()->datasetBox()->findData(notIdx.path()), -1);
    // A corrupt dataset: IDX headers that promise images the files do not hold (the labels
    // are whole: the form reads those). The form cannot know without reading every image;
    // the run fails and says why.
    QDir corrupt(m_root.filePath("corrupt-dataset"));
    QVERIFY(corrupt.mkpath("."));
    for (const char* name : names) {
      QFile file(corrupt.filePath(name));
      QVERIFY(file.open(QIODevice::WriteOnly));
      const bool images = QByteArray(name).contains("images");
      QByteArray labels(1000, '\0');
      for (int i = 0; i < labels.size(); ++i) labels[i] = char(i % 10);
      file.write(images ? QByteArray::fromHex("00000803000003e80000001c0000001c")
                        : QByteArray::fromHex("00000801000003e8") + labels);
    }
    QVERIFY(window.form()->addDatasetFolder(corrupt.path()).isEmpty());
    QSignalSpy finished(window.controller(), &RunController::runFinished);
    window.startRun();
    QVERIFY(finished.wait(60000));
    QVERIFY2(window.statusText().contains("Run failed") && window.statusText().contains("is truncated"),
             qPrintable(window.statusText()));
    QTRY_VERIFY(window.findChild<QWidget*>("errorMessage") != nullptr);
    QVERIFY(window.startAction()->isEnabled());  // a new run can start, and it runs
    window.form()->datasetBox()->setCurrentIndex(window.form()->datasetBox()->findData("synthetic"));
    window.form()->epochsBox()->setValue(1);
    window.startRun();
    QVERIFY(finished.wait(120000));
    REQUIRE_COMPLETED(finished.last().first().value<RunFinishedEvent>());
  }

  void failureMidRunShowsTheMessageKeepsTheCheckpointAndTheAppStaysUsable_data() {
    QTest::addColumn<QString>("learningRate");
    QTest::addColumn<QString>("faultPath");
    QTest::addColumn<QString>("expected");
    QTest::newRow("disk full at a checkpoint") << "0.05" << ".pt" << "No space left on device";
    QTest::newRow("disk full in metrics.csv") << "0.05" << "metrics.csv" << "No space left on device";
    QTest::newRow("NaN loss") << "1e9" << "" << "try a smaller \"Learning rate\"";  // the form's words, no flags
  }

  void failureMidRunShowsTheMessageKeepsTheCheckpointAndTheAppStaysUsable() {
    QFETCH(QString, learningRate);
    QFETCH(QString, faultPath);
    QFETCH(QString, expected);
    MainWindow window(m_root.path());
    quickSetup(window.form());
    window.form()->epochsBox()->setValue(3);
    window.form()->learningRateEdit()->setText(learningRate);
    // The first epoch's checkpoint (three members) is written; what comes after fails.
    if (!faultPath.isEmpty()) planWriteFault(faultPath.toStdString(), faultPath == ".pt" ? 7 : 20, ENOSPC);
    QSignalSpy finished(window.controller(), &RunController::runFinished);
    window.startRun();
    QVERIFY(finished.wait(120000));
    clearWriteFaults();
    const RunFinishedEvent event = finished.last().first().value<RunFinishedEvent>();
    EXPECT_STATUS(event, RunStatus::Failed);
    QVERIFY2(window.statusText().contains(expected), qPrintable(window.statusText()));
    // The window speaks in its own words: no command-line flags, no CLI commands.
    QVERIFY2(!window.statusText().contains("--") && !window.statusText().contains("ensemble-lab-cli"),
             qPrintable(window.statusText()));
    QTRY_VERIFY(window.findChild<QWidget*>("errorMessage") != nullptr);
    if (learningRate == "1e9") {
      // The rows it kept of the steps before the loss diverged are plotted, as the same run
      // read from disk shows them (no step event carried them: "No logged step yet").
      QVERIFY(!readMetricsCsv(event.runDirectory + "/metrics.csv").empty());
      auto* canvas = window.plots()[0]->findChild<QCustomPlot*>();
      const auto pointsShown = [canvas] {
        int points = 0;
        for (int g = 0; g < canvas->graphCount(); ++g) points += canvas->graph(g)->dataCount();
        return points;
      };
      QTRY_VERIFY(pointsShown() > 0);
      // It failed before its first checkpoint: nothing to resume from, so Resume is not offered.
      window.runsView()->selectRow(window.runsModel()->rowOf(QString::fromStdString(event.runDirectory)));
      QVERIFY(!window.findChild<QAction*>("resumeAction")->isEnabled());
    }
    if (faultPath == ".pt") {
      window.runsView()->selectRow(window.runsModel()->rowOf(QString::fromStdString(event.runDirectory)));
      QVERIFY(window.findChild<QAction*>("resumeAction")->isEnabled());
      // The epoch-1 checkpoint survives and the run can be resumed from it.
      QCOMPARE(Trainer::open(event.runDirectory)->globalStep(), int64_t(16));
    }
    QVERIFY(window.startAction()->isEnabled());
    window.form()->learningRateEdit()->setText("0.05");
    window.form()->epochsBox()->setValue(1);
    window.startRun();
    QVERIFY(finished.wait(120000));
    REQUIRE_COMPLETED(finished.last().first().value<RunFinishedEvent>());
  }

  void stopThenResumeFinishesTheRunWithoutDuplicatePoints() {
    MainWindow window(m_root.path());
    quickSetup(window.form());
    window.smoothingSlider()->setValue(0);
    QSignalSpy steps(window.controller(), &RunController::stepsReady);
    QSignalSpy finished(window.controller(), &RunController::runFinished);
    window.startRun();
    QVERIFY(steps.wait(60000));
    window.stopAction()->trigger();
    QVERIFY2(window.statusText().startsWith("Stopping after the current step"), qPrintable(window.statusText()));
    QVERIFY(finished.wait(60000));
    EXPECT_STATUS(finished.last().first().value<RunFinishedEvent>(), RunStatus::Stopped);
    QCOMPARE(window.runsModel()->data(window.runsModel()->index(0, RunsModel::Status), Qt::DisplayRole).toString(),
             QString("stopped"));
    // The engine's own words, once: "Stopped at step N (epoch E); …".
    QVERIFY2(window.statusText().startsWith("Stopped at step "), qPrintable(window.statusText()));
    // Resume is offered for the stopped run, and not for a completed one.
    window.runsView()->selectRow(0);
    QVERIFY(window.findChild<QAction*>("resumeAction")->isEnabled());
    const QString directory = window.runsModel()->record(0).directory;

    // Its metrics.csv removed meanwhile: the resume restores the rows from the checkpoint's
    // copy, and says so once, in a message that does not stop the run.
    QVERIFY(QFile::remove(directory + "/metrics.csv"));
    window.runsView()->selectRow(0);
    window.findChild<QAction*>("resumeAction")->trigger();
    QMessageBox* mended = nullptr;
    QTRY_VERIFY((mended = window.findChild<QMessageBox*>("errorMessage")) != nullptr);
    QCOMPARE(mended->windowTitle(), QString("The run started with a warning"));
    QVERIFY2(mended->text().startsWith(directory + "/metrics.csv had lost or changed rows") &&
                 mended->text().endsWith("restored from that checkpoint's copy"),
             qPrintable(mended->text()));
    QVERIFY(mended->grab().save(QDir::current().filePath("run-started-warning.png")));  // for review, as main-window.png
    QVERIFY(finished.wait(180000));
    mended->close();
    REQUIRE_COMPLETED(finished.last().first().value<RunFinishedEvent>());
    QCOMPARE(window.runsModel()->record(window.runsModel()->rowOf(directory)).summary->epochsCompleted, int64_t(2));
    // Every logged step once: the plot holds exactly the ensemble rows of metrics.csv.
    int rows = 0;
    for (const MetricsRow& row : readMetricsCsv((directory + "/metrics.csv").toStdString())) {
      rows += row.member == "ensemble" && !row.testLoss;
    }
    QTRY_COMPARE(window.plots()[0]->pointsOf(0, RunCurves::kEnsemble), rows);
    QTRY_COMPARE(window.plots()[3]->pointsOf(0, RunCurves::kEnsemble), 2);
    window.runsView()->selectRow(window.runsModel()->rowOf(directory));
    QTRY_VERIFY(!window.findChild<QAction*>("resumeAction")->isEnabled());  // completed: nothing to resume
    auto* exporter = window.findChild<ExportActions*>();
    QVERIFY(exporter->metricsAction()->isEnabled());
    window.runsView()->clearSelection();
    QVERIFY(!exporter->metricsAction()->isEnabled() && !exporter->plotAction()->isEnabled());  // nothing to export
  }

  void closingDuringARunStopsItCleanly() {
    auto* window = new MainWindow(m_root.path());
    window->setConfirmClose(false);
    quickSetup(window->form());
    window->form()->epochsBox()->setValue(200);
    QSignalSpy steps(window->controller(), &RunController::stepsReady);
    window->startRun();
    QVERIFY(steps.wait(60000));
    const QString directory = window->runsModel()->record(0).directory;
    QCOMPARE(window->runsModel()->data(window->runsModel()->index(0, RunsModel::Status), Qt::DisplayRole).toString(),
             QString("running"));
    QVERIFY(window->close());
    delete window;
    QFile summary(directory + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(summary.readAll()).object()["status"].toString(), QString("stopped"));
  }

  // Closing asks whether to stop the run; a run that ends while the question waits leaves
  // nothing to stop, and the window closes as asked (the question had stayed up).
  void aRunThatEndsWhileTheQuitQuestionWaitsClosesTheWindow() {
    MainWindow window(m_root.path());
    quickSetup(window.form());
    window.form()->epochsBox()->setValue(6);
    QSignalSpy steps(window.controller(), &RunController::stepsReady);
    window.startRun();
    QVERIFY(steps.wait(60000));
    const QString directory = window.runsModel()->record(window.runsModel()->liveRow()).directory;
    bool asked = false;
    QTimer answer;  // sees the question; says No only if it outlives the run by 10 s
    QElapsedTimer sinceEnded;
    connect(&answer, &QTimer::timeout, &window, [&] {
      auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
      if (!box) return;
      asked = true;
      if (window.controller()->isRunning()) return;
      if (!sinceEnded.isValid()) sinceEnded.start();
      if (sinceEnded.elapsed() > 10000) box->button(QMessageBox::No)->click();
    });
    answer.start(20);
    QVERIFY(window.close());  // returns once the question is answered
    QVERIFY(asked);
    QVERIFY(!window.controller()->isRunning());
    QFile summary(directory + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(summary.readAll()).object()["status"].toString(), QString("completed"));
  }

  void cleanupTestCase() { m_window.reset(); }
};

QTEST_MAIN(TestMainWindow)
#include "TestMainWindow.moc"
