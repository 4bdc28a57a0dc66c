// SPDX-License-Identifier: GPL-3.0-or-later
// The live plot: members thin and the ensemble bold per run, EMA smoothing over a kept raw
// line, incremental appends that scale to 100,000 points per series.
#include <qcustomplot.h>

#include <QSignalSpy>
#include <QtTest>
#include <cmath>
#include <limits>
#include <memory>

#include "ui/MetricPlot.h"
#include "ui/RunCurves.h"
#include "ui/SeedGroups.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

StepEvent loggedStep(int64_t step, std::vector<double> losses, double ensembleLoss) {
  StepEvent event;
  event.globalStep = step;
  event.logged = true;
  for (double loss : losses) event.members.push_back({loss, 0.5});
  event.ensemble = {ensembleLoss, 0.6};
  return event;
}

/// Pixels inside the plot's axes drawn in about `color` (what a person sees of a curve).
int pixelsOf(MetricPlot& plot, const QColor& color) {
  if (!plot.isVisible()) {
    plot.show();
    if (!QTest::qWaitForWindowExposed(&plot)) return -1;
  }
  plot.customPlot()->replot();
  const QImage image = plot.customPlot()->toPixmap().toImage();
  const QRect axes = plot.customPlot()->axisRect()->rect();
  int count = 0;
  for (int y = axes.top(); y <= axes.bottom(); ++y) {
    for (int x = axes.left(); x <= axes.right(); ++x) {
      const QColor pixel = image.pixelColor(x, y);
      if (std::abs(pixel.red() - color.red()) + std::abs(pixel.green() - color.green()) +
              std::abs(pixel.blue() - color.blue()) < 40) ++count;
    }
  }
  return count;
}

}  // namespace

class TestMetricPlot final : public QObject {
  Q_OBJECT

 private slots:
  void drawsMembersThinAndTheEnsembleBold() {
    auto curves = std::make_shared<RunCurves>("run");
    for (int s = 1; s <= 5; ++s) curves->addStep(loggedStep(s, {1.0, 2.0, 3.0}, 1.5), true);
    MetricPlot plot(Metric::TrainLoss);
    plot.setSmoothing(0);
    plot.setRuns({curves});
    QCOMPARE(plot.graphCount(), 4);  // three members + ensemble
    QCOMPARE(plot.pointsOf(0, RunCurves::kEnsemble), 5);
    double boldWidth = 0, thinWidth = 10;
    for (int g = 0; g < plot.customPlot()->graphCount(); ++g) {
      const double width = plot.customPlot()->graph(g)->pen().widthF();
      if (plot.customPlot()->graph(g)->name().contains("ensemble")) boldWidth = width;
      else thinWidth = std::min(thinWidth, width);
    }
    QVERIFY(boldWidth > 2 * thinWidth);
  }

  // What an exported plot's legend says: every line named, members in one entry when
  // there are many or runs are overlaid, and the run of each entry when they are.
  void theLegendNamesEveryLineAndItsRun() {
    const auto legendNames = [](MetricPlot& plot) {
      QStringList names;
      for (int i = 0; i < plot.customPlot()->legend->itemCount(); ++i) {
        auto* item = qobject_cast<QCPPlottableLegendItem*>(plot.customPlot()->legend->item(i));
        if (item) names << item->plottable()->name();
      }
      return names;
    };
    auto few = std::make_shared<RunCurves>("few");
    auto many = std::make_shared<RunCurves>("many");
    for (int s = 1; s <= 3; ++s) {
      few->addStep(loggedStep(s, {1.0, 2.0, 3.0}, 1.5), true);
      many->addStep(loggedStep(s, {1.0, 2.0, 3.0, 4.0, 5.0}, 2.5), true);
    }
    MetricPlot plot(Metric::TrainLoss);
    plot.setSmoothing(0);
    plot.setRuns({many});
    QCOMPARE(legendNames(plot), (QStringList{"ensemble", "members 0–4 (thin)"}));
    plot.setRuns({few});
    QCOMPARE(legendNames(plot), (QStringList{"ensemble", "member 0", "member 1", "member 2"}));
    plot.setRuns({few, many});
    // Overlaid, each run's members share one entry, and its bold line is named by the run:
    // a comparison's legend stays short.
    QCOMPARE(legendNames(plot), (QStringList{"few", "members 0–2 (thin)", "many", "members 0–4 (thin)"}));
    // Two runs' legends take two rows, each run's entries on its row, where the plot is as
    // wide as the window's at 1400x900 (they took four, and squeezed the test plots flat).
    plot.resize(480, 260);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.customPlot()->replot();
    QCOMPARE(plot.customPlot()->legend->wrap(), 2);
    QCOMPARE(plot.customPlot()->legend->rowCount(), 2);
  }

  void smoothingKeepsTheRawLineBeneath() {
    auto curves = std::make_shared<RunCurves>("run");
    const double values[] = {4.0, 2.0, 3.0, 1.0};
    for (int s = 0; s < 4; ++s) curves->addStep(loggedStep(s + 1, {values[s]}, values[s]), false);
    MetricPlot plot(Metric::TrainLoss);
    plot.setSmoothing(0.5);
    plot.setRuns({curves});
    QCOMPARE(plot.graphCount(), 2);  // faded raw + smoothed
    // TensorBoard's debiased EMA, w = 0.5: (2, 2, 2.5, 1.75) / (1 - 0.5^n) for n = 1..4.
    QCOMPARE(plot.smoothedValue(0, 0, 0), 4.0);
    QCOMPARE(plot.smoothedValue(0, 0, 1), 2.0 / 0.75);
    QCOMPARE(plot.smoothedValue(0, 0, 2), 2.5 / 0.875);
    QCOMPARE(plot.smoothedValue(0, 0, 3), 1.75 / 0.9375);
    QColor rawColor = plot.customPlot()->graph(0)->pen().color();
    QVERIFY(rawColor.alpha() < 128);  // faded
    QCOMPARE(plot.customPlot()->graph(0)->dataCount(), 4);
    QCOMPARE(plot.customPlot()->graph(0)->data()->at(3)->value, 1.0);  // raw kept as is
  }

  // An overflowed loss (inf, as a diverging run writes it to metrics.csv) is a gap in both
  // lines, and the average goes on past it: it had blanked the smoothed line from there on.
  void anInfiniteLossIsAGapNotTheEndOfTheSmoothedLine() {
    auto curves = std::make_shared<RunCurves>("run");
    const double values[] = {4.0, std::numeric_limits<double>::infinity(), 2.0, 3.0};
    for (int s = 0; s < 4; ++s) curves->addStep(loggedStep(s + 1, {values[s]}, values[s]), false);
    MetricPlot plot(Metric::TrainLoss);
    plot.setSmoothing(0.5);
    plot.setRuns({curves});
    QVERIFY(std::isnan(plot.smoothedValue(0, 0, 1)));
    QVERIFY(std::isnan(plot.customPlot()->graph(0)->data()->at(1)->value));
    // Points 1, 3, 4 averaged as if the gap were not there: (2, 2, 2.5) / (1 - 0.5^n).
    QCOMPARE(plot.smoothedValue(0, 0, 2), 2.0 / 0.75);
    QCOMPARE(plot.smoothedValue(0, 0, 3), 2.5 / 0.875);
    bool found = false;
    const QCPRange range = plot.customPlot()->graph(1)->getValueRange(found);
    QVERIFY(found && std::isfinite(range.upper) && range.upper <= 4.0);
  }

  void appendsIncrementallyToAHundredThousandPoints() {
    auto curves = std::make_shared<RunCurves>("run");
    MetricPlot plot(Metric::TrainAccuracy);
    plot.resize(480, 260);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.customPlot()->replot();  // laid out: the axes know their width
    plot.setRuns({curves});
    int64_t step = 0;
    for (int batch = 0; batch < 10; ++batch) {
      for (int i = 0; i < 10000; ++i) curves->addStep(loggedStep(++step, {0.1}, 0.1), false);
      plot.refresh();  // what the window's timer calls
      QCOMPARE(plot.pointsOf(0, 0), int(step));
    }
    QCOMPARE(plot.pointsOf(0, 0), 100000);
    // Follows the data, a few pixels past its last point (its dot whole, not cut by the frame).
    const QCPRange range = plot.customPlot()->xAxis->range();
    const double pixelsPastTheEnd = plot.customPlot()->xAxis->coordToPixel(range.upper) -
                                    plot.customPlot()->xAxis->coordToPixel(100000.0);
    QVERIFY2(pixelsPastTheEnd >= 4 && pixelsPastTheEnd <= 8, qPrintable(QString::number(pixelsPastTheEnd)));
  }

  void plotsTrainingCurvesByEpoch() {
    auto curves = std::make_shared<RunCurves>("run");
    for (int s = 1; s <= 20; ++s) curves->addStep(loggedStep(s, {1.0 / s}, 1.0 / s), false);
    EpochEvent epoch;
    epoch.epoch = 2;
    epoch.globalStep = 20;  // 10 steps per epoch
    epoch.test.members = {{0.5, 0.8}};
    curves->addEpoch(epoch, false);
    MetricPlot plot(Metric::TrainLoss);
    plot.setSmoothing(0);
    plot.setRuns({curves});
    QCOMPARE(plot.customPlot()->graph(0)->data()->at(19)->key, 20.0);
    plot.setEpochAxis(true);
    QCOMPARE(plot.customPlot()->graph(0)->data()->at(19)->key, 2.0);
    QCOMPARE(plot.customPlot()->graph(0)->data()->at(4)->key, 0.5);
    QCOMPARE(plot.customPlot()->xAxis->label(), QString("epoch"));
  }

  // Evaluations between epoch ends (eval_every) sit at their fractional epoch on the test
  // plots, live and reloaded from metrics.csv alike; reloaded, their place is known once an
  // epoch has ended (its row gives the steps per epoch).
  void placesEvaluationsBetweenEpochEndsAtTheirFractionOfAnEpoch() {
    RunCurves live("live");
    EvaluationEvent between;
    between.epoch = 1;
    between.globalStep = 4;
    between.stepsPerEpoch = 16;
    between.test.members = {{0.9, 0.6}};
    live.addEvaluation(between, false);
    EpochEvent epoch;
    epoch.epoch = 1;
    epoch.globalStep = 16;
    epoch.test.members = {{0.5, 0.8}};
    live.addEpoch(epoch, false);
    QCOMPARE(live.series(Metric::TestAccuracy, 0).x, QVector<double>({0.25, 1.0}));
    QCOMPARE(live.series(Metric::TestAccuracy, 0).y, QVector<double>({0.6, 0.8}));

    // step,epoch,member,train_loss,train_accuracy,test_loss,test_accuracy
    std::vector<MetricsRow> rows{{4, 1, "0", std::nullopt, std::nullopt, 0.9, 0.6},
                                 {8, 1, "0", std::nullopt, std::nullopt, 0.8, 0.7},
                                 {16, 1, "0", 0.7, 0.75, 0.5, 0.8},
                                 {20, 2, "0", std::nullopt, std::nullopt, 0.45, 0.85}};
    const RunCurves reloaded = RunCurves::fromRows(rows, "reloaded");
    QCOMPARE(reloaded.series(Metric::TestAccuracy, 0).x, QVector<double>({0.25, 0.5, 1.0, 1.25}));
    QCOMPARE(reloaded.series(Metric::TestLoss, 0).y, QVector<double>({0.9, 0.8, 0.5, 0.45}));
    MetricPlot plot(Metric::TestAccuracy);  // the axis opens at 0 for the point at 0.25
    plot.setRuns({std::make_shared<RunCurves>(reloaded)});
    QCOMPARE(plot.customPlot()->xAxis->range().lower, 0.0);
    plot.setRuns({std::make_shared<RunCurves>(live)});  // 0.25 and 1: still 0
    QCOMPARE(plot.customPlot()->xAxis->range().lower, 0.0);
    RunCurves epochsOnly("epochs");
    epochsOnly.addEpoch(epoch, false);
    plot.setRuns({std::make_shared<RunCurves>(epochsOnly)});
    QCOMPARE(plot.customPlot()->xAxis->range().lower, 0.5);  // half an epoch before epoch 1
    rows.resize(2);  // a first epoch that never ended: nothing tells where its evaluations sit
    QCOMPARE(RunCurves::fromRows(rows, "cut").series(Metric::TestAccuracy, 0).x.size(), 0);
  }

  // A live run's first logged step is drawn on an axis from step 0 (a lone point's
  // rescaled range was centred on it: -40 to 60); a new run without test points yet does
  // not keep the previous run's test axis.
  void aNewRunStartsFromEmptyAxes() {
    auto first = std::make_shared<RunCurves>("first");
    first->addStep(loggedStep(10, {1.0}, 1.0), true);
    MetricPlot train(Metric::TrainLoss);
    train.setRuns({first});
    QCOMPARE(train.customPlot()->xAxis->range().lower, 0.0);
    QVERIFY(train.customPlot()->xAxis->range().upper >= 10);
    QVERIFY(train.customPlot()->xAxis->range().upper < 20);

    MetricPlot test(Metric::TestAccuracy);
    EpochEvent epoch;
    epoch.test.members = {{0.5, 0.8}};
    for (int e = 1; e <= 30; ++e) {
      epoch.epoch = e;
      epoch.globalStep = 16 * e;
      first->addEpoch(epoch, false);
    }
    test.setRuns({first});
    QVERIFY(test.customPlot()->xAxis->range().upper > 30);
    test.setRuns({std::make_shared<RunCurves>("new")});
    test.refresh();
    QCOMPARE(test.customPlot()->xAxis->range().upper, 3.5);
  }

  // Empty axes (a window with no run selected) fill the plot's width, as axes with curves do:
  // an empty legend in the layout had squeezed them to their tick labels' width.
  void emptyAxesFillThePlot() {
    MetricPlot plot(Metric::TrainLoss);
    plot.resize(600, 300);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    const auto axesWidth = [&] {
      plot.customPlot()->replot();
      return plot.customPlot()->axisRect()->rect().width();
    };
    QVERIFY2(axesWidth() > 450, qPrintable(QString::number(axesWidth())));
    auto curves = std::make_shared<RunCurves>("run");
    for (int s = 1; s <= 5; ++s) curves->addStep(loggedStep(s, {1.0, 2.0}, 1.5), true);
    plot.setRuns({curves});
    QVERIFY(plot.customPlot()->legend->visible());
    QVERIFY2(axesWidth() > 450, qPrintable(QString::number(axesWidth())));
    plot.setRuns({});
    plot.refresh();
    QVERIFY2(axesWidth() > 450, qPrintable(QString::number(axesWidth())));
  }

  // The panel's 10 Hz refresh redraws a plot only when it has something new to show: each
  // redraw takes CPU from the run being trained (bench/gui_vs_cli.py measured 12% of it).
  void redrawsOnlyWhenThereIsSomethingNew() {
    auto curves = std::make_shared<RunCurves>("run");
    curves->addStep(loggedStep(1, {1.0}, 1.0), false);
    MetricPlot plot(Metric::TrainLoss);
    plot.setRuns({curves});
    QSignalSpy redrawn(plot.customPlot(), &QCustomPlot::afterReplot);
    QCoreApplication::processEvents();
    redrawn.clear();
    for (int i = 0; i < 5; ++i) {  // progress only: no new point
      plot.refresh();
      QCoreApplication::processEvents();
    }
    QCOMPARE(redrawn.count(), 0);
    curves->addStep(loggedStep(2, {0.9}, 0.9), false);
    plot.refresh();
    QCoreApplication::processEvents();
    QCOMPARE(redrawn.count(), 1);
    QCOMPARE(plot.pointsOf(0, 0), 2);
    plot.setEpochAxis(true);  // a setting redraws with no new point
    QCoreApplication::processEvents();
    QCOMPARE(redrawn.count(), 2);
  }

  // A run that logged once (1,000 images at batch 100) has one point per curve: a line
  // through one point draws nothing, and the plots looked empty under their legend.
  void aLoneTrainingPointIsDrawn() {
    auto curves = std::make_shared<RunCurves>("run");
    curves->addStep(loggedStep(10, {2.3, 2.2}, 2.25), true);
    for (const double smoothing : {0.0, 0.6}) {
      MetricPlot plot(Metric::TrainLoss);
      plot.resize(600, 300);
      plot.setSmoothing(smoothing);
      plot.setRuns({curves});
      QColor ensembleColor;
      for (int g = 0; g < plot.customPlot()->graphCount(); ++g) {
        if (plot.customPlot()->graph(g)->name() == "ensemble") ensembleColor = plot.customPlot()->graph(g)->pen().color();
      }
      QVERIFY2(pixelsOf(plot, ensembleColor) >= 20, qPrintable(QString::number(pixelsOf(plot, ensembleColor))));
      // With a second point it is a line again, not a line of dots.
      auto longer = std::make_shared<RunCurves>("run");
      longer->addStep(loggedStep(10, {2.3, 2.2}, 2.25), true);
      longer->addStep(loggedStep(20, {2.0, 1.9}, 1.95), true);
      plot.setRuns({longer});
      for (int g = 0; g < plot.customPlot()->graphCount(); ++g) {
        QCOMPARE(plot.customPlot()->graph(g)->scatterStyle().shape(), QCPScatterStyle::ssNone);
      }
    }
  }

  // Seeds trained for one epoch: one test point each, so the band has a single key and a
  // fill between its edges draws nothing; its spread shows as an error bar on the mean.
  void aBandOfOnePointIsAnErrorBar() {
    QVector<std::shared_ptr<const RunCurves>> seeds;
    for (const double accuracy : {0.70, 0.80, 0.90}) {
      auto run = std::make_shared<RunCurves>("seed");
      EpochEvent epoch;
      epoch.epoch = 1;
      epoch.test.members = {{0.5, accuracy}};
      run->addEpoch(epoch, false);
      seeds.push_back(run);
    }
    MetricPlot plot(Metric::TestAccuracy);
    plot.resize(600, 400);
    plot.setGroups({std::make_shared<SeedGroupCurves>("group A", "group A (seeds 0,1,2)", seeds)});
    plot.refresh();
    const MetricPlot::GroupGraphs graphs = plot.groupGraphs(0);
    QVERIFY(graphs.bars != nullptr);
    QCOMPARE(graphs.bars->dataCount(), 1);
    QVERIFY(std::abs(graphs.bars->data()->at(0).errorPlus - 0.1) < 1e-9);  // one std of 0.7, 0.8, 0.9
    QVERIFY(std::abs(graphs.bars->data()->at(0).errorMinus - 0.1) < 1e-9);
    // Drawn: the bar spans 0.1 above and below the mean, far more than the mean's dot.
    const double pixelsPerUnit = plot.customPlot()->axisRect()->height() / plot.customPlot()->yAxis->range().size();
    QVERIFY2(pixelsOf(plot, graphs.bars->pen().color()) > 0.15 * pixelsPerUnit,
             qPrintable(QString::number(pixelsOf(plot, graphs.bars->pen().color()))));
    // The legend names the bar as it named the band.
    QVERIFY(graphs.bars->name().contains("± 1 std"));
    QVERIFY(!graphs.upper->name().isEmpty() && plot.customPlot()->legend->itemWithPlottable(graphs.bars));
    QVERIFY(!plot.customPlot()->legend->itemWithPlottable(graphs.upper));
    // A band of two points is a fill again, with no bar.
    auto two = std::make_shared<RunCurves>(*seeds[0]);
    EpochEvent second;
    second.epoch = 2;
    second.test.members = {{0.4, 0.85}};
    two->addEpoch(second, false);
    plot.setGroups({std::make_shared<SeedGroupCurves>("group A", "group A", QVector<std::shared_ptr<const RunCurves>>{two, seeds[1]})});
    QVERIFY(plot.groupGraphs(0).bars == nullptr);
  }

  // An empty plot says why in its middle, and the hint goes with the first point.
  void anEmptyPlotSaysWhy() {
    MetricPlot test(Metric::TestAccuracy);
    QVERIFY2(test.emptyHint().contains("select runs in the Runs tab"), qPrintable(test.emptyHint()));
    auto run = std::make_shared<RunCurves>("run");
    run->addStep(loggedStep(1, {1.0, 2.0}, 1.5), true);
    test.setRuns({run});  // training, before its first evaluation
    QVERIFY2(test.emptyHint().contains("No test point yet"), qPrintable(test.emptyHint()));
    MetricPlot train(Metric::TrainLoss);
    train.setRuns({run});
    QCOMPARE(train.emptyHint(), QString());
    EpochEvent epoch;
    epoch.epoch = 1;
    epoch.test.members = {{0.5, 0.8}, {0.6, 0.7}};
    run->addEpoch(epoch, true);
    test.refresh();
    QCOMPARE(test.emptyHint(), QString());
  }

  void comparesSeveralRuns() {
    auto single = std::make_shared<RunCurves>("single");
    auto ensembleRun = std::make_shared<RunCurves>("ensemble");
    EpochEvent epoch;
    epoch.epoch = 1;
    epoch.test.members = {{0.5, 0.8}};
    single->addEpoch(epoch, false);
    epoch.test.members = {{0.5, 0.8}, {0.6, 0.79}};
    epoch.test.ensemble.nll = 0.4;
    epoch.test.ensemble.accuracy = 0.83;
    ensembleRun->addEpoch(epoch, true);
    MetricPlot plot(Metric::TestAccuracy);
    plot.setRuns({single, ensembleRun});
    QCOMPARE(plot.graphCount(), 1 + 3);
    QCOMPARE(plot.smoothedValue(1, RunCurves::kEnsemble, 0), 0.83);
  }
};

QTEST_MAIN(TestMetricPlot)
#include "TestMetricPlot.moc"
