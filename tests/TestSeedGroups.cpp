// SPDX-License-Identifier: GPL-3.0-or-later
// Seed groups (ui/SeedGroups.h): runs that differ only in seed are grouped in the runs
// table, and selected together they plot as their mean with a ± std (or min–max) band,
// computed at the points every run has. Real runs, trained by the engine; the real window.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QTemporaryDir>
#include <QFile>
#include <QLabel>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>

#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "tests/RunStatusCheck.h"
#include "ui/MainWindow.h"
#include "ui/MetricPlot.h"
#include "ui/PlotPanel.h"
#include "ui/RunListView.h"
#include "ui/RunsModel.h"
#include "ui/SeedGroups.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

ExperimentConfig tinyRun(std::uint64_t seed, double lr) {
  ExperimentConfig config;
  config.dataset = "synthetic";
  config.mode = TrainingMode::Single;
  config.devices = "cpu";
  config.batchSize = 64;
  config.epochs = 3;
  config.trainLimit = 512;
  config.seed = seed;
  config.learningRate = lr;
  return config;
}

QVector<double> valuesOf(const QCPGraph* graph) {
  QVector<double> values;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) values.push_back(it->value);
  return values;
}

}  // namespace

class TestSeedGroups final : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    // Three seeds of one setup, and the same setup at another learning rate.
    const struct {
      const char* name;
      std::uint64_t seed;
      double lr;
    } runs[] = {{"20260101-000000001-single-cnn", 0, 0.05},
                {"20260101-000000002-single-cnn", 1, 0.05},
                {"20260101-000000003-single-cnn", 2, 0.05},
                {"20260101-000000004-single-cnn", 0, 0.1}};
    for (const auto& run : runs) {
      REQUIRE_COMPLETED(Trainer::create(tinyRun(run.seed, run.lr), m_root.filePath(run.name).toStdString())
                            ->run(nullptr, nullptr));
    }
  }

  void theBandIsTakenOverTheRunsThatHaveEachPoint() {
    const Series a{{1, 2, 3, 4}, {1, 2, 3, 4}}, b{{2, 3, 4, 5}, {4, 6, 8, 10}}, c{{2, 4}, {0, 5}};
    const Band band = bandOf({&a, &b, &c});
    QCOMPARE(band.x, (QVector<double>{1, 2, 3, 4, 5}));
    QCOMPARE(band.count, (QVector<int>{1, 3, 2, 3, 1}));
    QCOMPARE(band.mean, (QVector<double>{1, 2, 4.5, 17.0 / 3, 10}));
    QCOMPARE(band.min, (QVector<double>{1, 0, 3, 4, 10}));
    QCOMPARE(band.max, (QVector<double>{1, 4, 6, 8, 10}));
    // Sample standard deviation: at x = 2, values 2, 4, 0 around 2 -> sqrt(8 / 2).
    QCOMPARE(band.std[1], 2.0);
    QCOMPARE(band.std[0], 0.0);  // one run there: no spread
    QVERIFY(std::abs(band.std[3] - std::sqrt((std::pow(4 - 17.0 / 3, 2) + std::pow(8 - 17.0 / 3, 2) +
                                              std::pow(5 - 17.0 / 3, 2)) / 2)) < 1e-12);
    QCOMPARE(bandOf({&a}).std, (QVector<double>{0, 0, 0, 0}));  // one run: no spread
  }

  void onlyTheSeedMayDiffer() {
    QCOMPARE(seedGroupKey(tinyRun(0, 0.05)), seedGroupKey(tinyRun(7, 0.05)));
    QVERIFY(seedGroupKey(tinyRun(0, 0.05)) != seedGroupKey(tinyRun(0, 0.1)));
    ExperimentConfig otherDevices = tinyRun(0, 0.05);
    otherDevices.devices = "cpu*2";
    QVERIFY(seedGroupKey(tinyRun(0, 0.05)) != seedGroupKey(otherDevices));
  }

  void theWindowGroupsSeedsAndPlotsTheirBand() {
    MainWindow window(m_root.path());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    RunsModel& runs = *window.runsModel();
    QCOMPARE(runs.rowCount(), 4);
    QVector<int> group;
    for (int row = 0; row < runs.rowCount(); ++row) {
      const QString cell = runs.data(runs.index(row, RunsModel::SeedGroup), Qt::DisplayRole).toString();
      if (runs.record(row).config->learningRate == 0.1) {
        QCOMPARE(cell, QString());  // no other run shares its settings
      } else {
        QCOMPARE(cell, QString("A · 3 seeds"));
        group.push_back(row);
      }
    }
    // "Select its seed group" from one of them selects all three.
    auto* view = static_cast<RunListView*>(window.runsView());
    view->selectRow(group[1]);
    view->findChild<QAction*>("selectSeedGroupAction")->trigger();
    QCOMPARE(view->selectedRows(), group);
    // The Ensemble tab compares two runs: the third selected is said to be left out.
    auto* caption = window.findChild<QLabel*>("breakdownCaption");
    QVERIFY2(caption->text().contains("1 more selected run(s) not shown"), qPrintable(caption->text()));

    // The test-accuracy plot: one band, its mean the mean of the three runs' curves.
    MetricPlot* plot = window.plots()[3];
    QTRY_VERIFY(plot->groupGraphs(0).mean != nullptr);
    QVERIFY(plot->groupGraphs(1).mean == nullptr);
    const MetricPlot::GroupGraphs graphs = plot->groupGraphs(0);
    QVector<double> expectedMean(3, 0), sumSquares(3, 0), low(3, 1e9);
    for (const int row : group) {
      const Series& series = runs.record(row).curves->series(Metric::TestAccuracy, 0);
      QCOMPARE(series.y.size(), 3);
      for (int e = 0; e < 3; ++e) expectedMean[e] += series.y[e] / 3, low[e] = std::min(low[e], series.y[e]);
    }
    for (const int row : group) {
      const Series& series = runs.record(row).curves->series(Metric::TestAccuracy, 0);
      for (int e = 0; e < 3; ++e) sumSquares[e] += std::pow(series.y[e] - expectedMean[e], 2);
    }
    const QVector<double> mean = valuesOf(graphs.mean), lower = valuesOf(graphs.lower), upper = valuesOf(graphs.upper);
    for (int e = 0; e < 3; ++e) {
      QVERIFY(std::abs(mean[e] - expectedMean[e]) < 1e-12);
      QVERIFY(std::abs((upper[e] - lower[e]) / 2 - std::sqrt(sumSquares[e] / 2)) < 1e-12);
    }
    QCOMPARE(graphs.upper->channelFillGraph(), graphs.lower);  // the band is filled between its edges
    QVERIFY(graphs.upper->brush().style() != Qt::NoBrush);
    QVERIFY2(graphs.mean->name() == "group A (single · lr 0.05 · 512 imgs, seeds 0,1,2): mean" && graphs.upper->name() == "group A: ± 1 std",
             qPrintable(graphs.mean->name()));
    QCOMPARE(plot->graphCount(), 3);  // the band's two edges and the mean; no run line
    // The group's runs share its colour in the Run column's swatch.
    for (const int row : group) {
      QVERIFY(runs.data(runs.index(row, RunsModel::Name), Qt::DecorationRole).isValid());
      QCOMPARE(runs.plotColor(row).darker(115), graphs.mean->pen().color());
    }
    QTest::qWait(200);
    QVERIFY(window.grab().save(m_root.filePath("seed-group.png")));

    // min–max instead of ± std.
    window.findChild<PlotPanel*>()->bandBox()->setCurrentIndex(1);
    QTRY_COMPARE(valuesOf(plot->groupGraphs(0).lower), low);
    QVERIFY(plot->groupGraphs(0).upper->name().contains("min–max"));

    // With another run selected too, the band and that run's own line; ungrouped, four lines.
    window.runsView()->selectAll();
    QTRY_COMPARE(plot->graphCount(), 3 + 1);
    window.findChild<PlotPanel*>()->groupSeedsBox()->setChecked(false);
    QTRY_COMPARE(plot->graphCount(), 4);
    QVERIFY(plot->groupGraphs(0).mean == nullptr);
  }

  // A seed counts once: runs repeating one are flagged and drawn as themselves, and runs of
  // a single seed form no group. A run that ended early stays in the mean up to its last
  // point, and the group's label says at which step the mean loses it.
  void repeatedSeedsCountOnceAndAShortRunIsNamed() {
    QTemporaryDir root;
    const struct {
      const char* name;
      std::uint64_t seed;
      double lr;
    } runs[] = {{"20260102-000000004-single-cnn", 0, 0.05},   // newest: seed 0
                {"20260102-000000003-single-cnn", 0, 0.05},   // seed 0 again
                {"20260102-000000002-single-cnn", 1, 0.05},   // seed 1, cut after its first epoch below
                {"20260102-000000001-single-cnn", 5, 0.2},    // one setup, one seed, twice: no group
                {"20260102-000000000-single-cnn", 5, 0.2}};
    for (const auto& run : runs) {
      REQUIRE_COMPLETED(Trainer::create(tinyRun(run.seed, run.lr), root.filePath(run.name).toStdString())
                            ->run(nullptr, nullptr));
    }
    // What a run stopped after its first epoch (8 steps) leaves in metrics.csv.
    QFile metrics(root.filePath("20260102-000000002-single-cnn/metrics.csv"));
    QVERIFY(metrics.open(QIODevice::ReadOnly));
    QStringList kept;
    for (const QString& line : QString::fromUtf8(metrics.readAll()).split('\n', Qt::SkipEmptyParts)) {
      if (kept.isEmpty() || line.section(',', 0, 0).toInt() <= 8) kept << line;
    }
    metrics.close();
    QVERIFY(metrics.open(QIODevice::WriteOnly | QIODevice::Truncate));
    metrics.write((kept.join('\n') + '\n').toUtf8());
    metrics.close();

    MainWindow window(root.path());
    window.resize(1400, 900);
    window.show();
    window.smoothingSlider()->setValue(0);  // the plotted mean is then the runs' values as they are
    RunsModel& model = *window.runsModel();
    QCOMPARE(model.rowCount(), 5);
    const auto cell = [&](int row) { return model.data(model.index(row, RunsModel::SeedGroup), Qt::DisplayRole).toString(); };
    QCOMPARE(cell(0), QString("A · 2 seeds"));
    QCOMPARE(cell(1), QString("A · seed 0 again"));
    QVERIFY(model.data(model.index(1, RunsModel::SeedGroup), Qt::ToolTipRole).toString().contains("same seed (0)"));
    QCOMPARE(cell(2), QString("A · 2 seeds"));
    QCOMPARE(cell(3), QString());
    QCOMPARE(cell(4), QString());

    auto* view = static_cast<RunListView*>(window.runsView());
    view->selectRow(0);
    view->findChild<QAction*>("selectSeedGroupAction")->trigger();
    QCOMPARE(view->selectedRows(), (QVector<int>{0, 1, 2}));
    MetricPlot* trainLoss = window.plots()[0];
    QTRY_VERIFY(trainLoss->groupGraphs(0).mean != nullptr);
    const MetricPlot::GroupGraphs graphs = trainLoss->groupGraphs(0);
    QVERIFY2(graphs.mean->name() == "group A (single · lr 0.05 · 512 imgs, seeds 0,1; 1 of 2 runs after step 8): mean",
             qPrintable(graphs.mean->name()));
    QCOMPARE(trainLoss->graphCount(), 3 + 1);  // the band's edges and mean, and the repeat's own line
    // The mean runs to the longer run's end; up to step 8 it is the two runs', then the one's.
    const Series& full = model.record(0).curves->series(Metric::TrainLoss, 0);
    const Series& cut = model.record(2).curves->series(Metric::TrainLoss, 0);
    QCOMPARE(cut.x.back(), 8.0);
    const QVector<double> mean = valuesOf(graphs.mean);
    QCOMPARE(mean.size(), full.x.size());
    QVERIFY(std::abs(mean.front() - (full.y.front() + cut.y.front()) / 2) < 1e-12);
    QVERIFY(std::abs(mean.back() - full.y.back()) < 1e-12);
    // A repeat's name says when it started: the two seed-0 runs had one legend label.
    QVERIFY2(model.record(1).legendLabel().endsWith(" · started 00:00:00"), qPrintable(model.record(1).legendLabel()));
    QVERIFY(!model.record(0).legendLabel().contains("started"));

    // The newest seed-0 run stopped early: the whole one stands for the seed instead.
    QFile summary(root.filePath("20260102-000000004-single-cnn/summary.json"));
    QVERIFY(summary.open(QIODevice::ReadOnly));
    QJsonObject stopped = QJsonDocument::fromJson(summary.readAll()).object();
    summary.close();
    stopped["status"] = "stopped";
    stopped["steps_completed"] = 3;
    QVERIFY(summary.open(QIODevice::WriteOnly | QIODevice::Truncate));
    summary.write(QJsonDocument(stopped).toJson());
    summary.close();
    model.scan(root.path());
    QCOMPARE(cell(0), QString("A · seed 0 again"));
    QCOMPARE(cell(1), QString("A · 2 seeds"));
    view->selectRow(1);
    view->findChild<QAction*>("selectSeedGroupAction")->trigger();
    QTRY_VERIFY(trainLoss->groupGraphs(0).mean != nullptr);
    QVERIFY2(trainLoss->groupGraphs(0).mean->name() == "group A (single · lr 0.05 · 512 imgs, seeds 0,1; 1 of 2 runs after step 8): mean",
             qPrintable(trainLoss->groupGraphs(0).mean->name()));
    // The group's mean is the whole run's (and the cut one's), not the stopped run's.
    const QVector<double> wholeMean = valuesOf(trainLoss->groupGraphs(0).mean);
    QVERIFY(std::abs(wholeMean.back() - model.record(1).curves->series(Metric::TrainLoss, 0).y.back()) < 1e-12);
  }
};

QTEST_MAIN(TestSeedGroups)
#include "TestSeedGroups.moc"
