// SPDX-License-Identifier: GPL-3.0-or-later
// The one legend above the four live plots: a run's entries stay on one row, no name is
// cut where there is room, twenty runs scroll instead of taking the plots' height, a click
// hides a run's lines on every plot, and a plot's export still names its lines (its own
// legend drawn for the file only).
#include <qcustomplot.h>

#include <QFile>
#include <QScrollBar>
#include <QSlider>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtTest>
#include <memory>

#include "ui/MetricPlot.h"
#include "ui/PlotLegend.h"
#include "ui/PlotPanel.h"
#include "ui/RunCurves.h"
#include "ui/SeedGroups.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

/// `runs` overlaid runs as MetricPlot lists them: each a block of its bold line and, for
/// every other run (an ensemble), its members' entry; names of growing length.
QVector<LegendEntry> comparedRuns(int runs) {
  QVector<LegendEntry> entries;
  for (int run = 0; run < runs; ++run) {
    entries.push_back({QString("ensemble ×4 · lr 0.%1 · momentum 0.5").arg(QString(run + 1, QChar('5'))), QPen(Qt::blue, 2.5), {},
                       LegendEntry::Kind::Line, run});
    if (run % 2 == 0) entries.push_back({"members 0–3 (thin)", QPen(Qt::cyan, 1), {}, LegendEntry::Kind::Line, run});
  }
  return entries;
}

StepEvent loggedStep(int64_t step, std::vector<double> losses) {
  StepEvent event;
  event.globalStep = step;
  event.logged = true;
  for (double loss : losses) event.members.push_back({loss, 0.5});
  event.ensemble = {losses.front(), 0.6};
  return event;
}

}  // namespace

class TestPlotLegend final : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }  // the panel keeps its smoothing in QSettings

  // At every width from a narrow window's to a wide screen's: each run's entries share a
  // row, entries neither overlap nor leave the legend, and with two or more runs to a row
  // every name is whole (only a single column, narrower than a name, cuts it).
  void aRunsEntriesShareARowAndNamesAreWhole() {
    PlotLegend legend;
    const QVector<LegendEntry> entries = comparedRuns(5);
    legend.setEntries(entries);
    legend.show();
    QVERIFY(QTest::qWaitForWindowExposed(&legend));
    int previousColumns = 0;
    for (int width = 1600; width >= 200; width -= 50) {
      legend.resize(width, legend.heightForWidth(width));
      QCOMPARE(legend.height(), legend.heightForWidth(width));
      const int columns = legend.columns();
      QVERIFY2(previousColumns == 0 || columns <= previousColumns, qPrintable(QString::number(width)));
      previousColumns = columns;
      // Runs side by side, or (where not even one run's entries fit a row) one entry a row.
      const bool runsKept = legend.rows() == (5 + columns - 1) / columns;
      QVERIFY2(runsKept || (columns == 1 && legend.rows() == entries.size()), qPrintable(QString::number(width)));
      for (int i = 0; i < entries.size(); ++i) {
        const QRect rect = legend.entryRect(i);
        QVERIFY2(rect.left() >= 0 && rect.right() < width, qPrintable(QString("entry %1 at width %2").arg(i).arg(width)));
        if (columns > 1) QCOMPARE(rect.width(), legend.entryWidth(i));
        if (runsKept && i > 0 && entries[i].block == entries[i - 1].block) {
          QCOMPARE(rect.top(), legend.entryRect(i - 1).top());  // a run's members beside its line
          QVERIFY(rect.left() > legend.entryRect(i - 1).right());
        }
        for (int j = 0; j < i; ++j) QVERIFY(!rect.intersects(legend.entryRect(j)));
      }
    }
    QCOMPARE(previousColumns, 1);  // 200 px hold one run a row
    legend.resize(1600, 100);
    QVERIFY(legend.columns() >= 3);  // and a wide screen several
  }

  // In a layout, as above the plots: narrowed until a second row is needed, the legend is
  // given that row. (Its fixed height held it to the rows of its width before, so at 960 px
  // the second run's entry was cut off while its lines were drawn.)
  void inALayoutItTakesTheRowsOfItsNewWidth() {
    QWidget panel;
    auto* legend = new PlotLegend;
    auto* layout = new QVBoxLayout(&panel);
    layout->addWidget(legend);
    layout->addWidget(new QWidget, 1);  // the plots, which take what is left
    legend->setEntries(comparedRuns(3));
    panel.resize(1600, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTRY_COMPARE(legend->rows(), 1);
    for (const int width : {900, 600, 400, 900, 1600}) {
      panel.resize(width, 400);
      QTRY_COMPARE_WITH_TIMEOUT(legend->height(), legend->heightForWidth(legend->width()), 1000);
      if (legend->rows() <= PlotLegend::kMostRows) {  // more would scroll
        QVERIFY2(legend->entryRect(comparedRuns(3).size() - 1).bottom() < legend->height(), qPrintable(QString::number(width)));
      }
    }
  }

  // Twenty runs: at most kMostRows rows tall, the rest a scroll away, the last run
  // reachable; with none the legend takes no room.
  void manyRunsScrollAndNoneTakeNoRoom() {
    PlotLegend legend;
    const QVector<LegendEntry> entries = comparedRuns(20);
    legend.setEntries(entries);
    legend.resize(700, legend.heightForWidth(700));
    legend.show();
    QVERIFY(QTest::qWaitForWindowExposed(&legend));
    QVERIFY(legend.rows() > PlotLegend::kMostRows);
    const QFontMetrics metrics(legend.font());
    QVERIFY(legend.height() <= PlotLegend::kMostRows * (metrics.height() + 4) + 8);
    QVERIFY(legend.scrollBar()->isVisible());
    QVERIFY(legend.entryRect(int(entries.size()) - 1).bottom() > legend.height());
    legend.scrollBar()->setValue(legend.scrollBar()->maximum());
    const QRect last = legend.entryRect(int(entries.size()) - 1);
    QVERIFY2(last.top() >= 0 && last.bottom() <= legend.height(), qPrintable(QString::number(last.bottom())));
    QVERIFY(last.right() < legend.scrollBar()->geometry().left());  // names clear of the bar
    legend.setEntries({});
    QVERIFY(legend.isHidden());
    QCOMPARE(legend.heightForWidth(700), 0);
    QVERIFY(!legend.scrollBar()->isVisible());
  }

  // What the plot hands the legend: its legend's entries in order, in their pens, a run's
  // two in one block, a group's band as a band (or an error bar when it has one point).
  void aPlotsEntriesAreItsLegendsInBlocks() {
    auto few = std::make_shared<RunCurves>("few");
    auto many = std::make_shared<RunCurves>("many");
    for (int s = 1; s <= 3; ++s) {
      few->addStep(loggedStep(s, {1.0, 2.0, 3.0}), true);
      many->addStep(loggedStep(s, {1.0, 2.0, 3.0, 4.0, 5.0}), true);
    }
    MetricPlot plot(Metric::TrainLoss);
    plot.setSmoothing(0);
    QSignalSpy changed(&plot, &MetricPlot::legendChanged);
    plot.setRuns({few});
    QVERIFY(!changed.isEmpty());
    QVector<LegendEntry> entries = plot.legendEntries();
    QCOMPARE(entries.size(), 4);  // alone, a run's entries are each their own block
    for (int i = 0; i < entries.size(); ++i) QCOMPARE(entries[i].block, i);
    QVector<std::shared_ptr<const RunCurves>> seeds{few, many};
    plot.setGroups({std::make_shared<SeedGroupCurves>("group A", "group A (seeds 0,1)", seeds)});
    plot.setRuns({few, many});
    entries = plot.legendEntries();
    QStringList names;
    for (const LegendEntry& entry : entries) names << entry.name;
    QCOMPARE(names, (QStringList{"few", "members 0–2 (thin)", "many", "members 0–4 (thin)", "group A (seeds 0,1): mean",
                                 "group A: ± 1 std"}));
    QCOMPARE((QVector<int>{entries[0].block, entries[1].block, entries[2].block, entries[3].block, entries[4].block,
                           entries[5].block}),
             (QVector<int>{0, 0, 1, 1, 2, 2}));
    QCOMPARE(entries[4].kind, LegendEntry::Kind::Line);
    QCOMPARE(entries[5].kind, LegendEntry::Kind::Band);
    QCOMPARE(entries[5].brush.color(), plot.groupGraphs(0).upper->brush().color());
    for (int g = 0; g < plot.customPlot()->graphCount(); ++g) {
      if (plot.customPlot()->graph(g)->name() == "few") QCOMPARE(entries[0].pen, plot.customPlot()->graph(g)->pen());
    }
  }

  // In the window a plot shows no legend of its own; its export draws one anyway, and the
  // plot on screen is as it was.
  void anExportNamesItsLinesWithoutALegendOnScreen() {
    auto few = std::make_shared<RunCurves>("few runs' name");
    auto many = std::make_shared<RunCurves>("many runs' name");
    for (int s = 1; s <= 3; ++s) {
      few->addStep(loggedStep(s, {1.0, 2.0}), true);
      many->addStep(loggedStep(s, {2.0, 3.0}), true);
    }
    MetricPlot plot(Metric::TrainLoss);
    plot.setOwnLegend(false);
    plot.resize(600, 300);
    plot.setRuns({few, many});
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    plot.customPlot()->replot();
    QVERIFY(!plot.customPlot()->legend->visible());
    const QRect axes = plot.customPlot()->axisRect()->outerRect();
    QTemporaryDir out;
    QVERIFY(plot.exportTo(out.filePath("plot.svg")).isEmpty());
    QFile svg(out.filePath("plot.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(svg.readAll());
    QVERIFY2(text.contains("few runs") && text.contains("many runs"), "the exported plot has no legend");
    plot.customPlot()->replot();
    QVERIFY(!plot.customPlot()->legend->visible());
    QCOMPARE(plot.customPlot()->axisRect()->outerRect(), axes);
    // A plot with its own legend (the default) shows it, under its axes.
    plot.setOwnLegend(true);
    plot.refresh();
    plot.customPlot()->replot();
    QVERIFY(plot.customPlot()->legend->visible());
    QVERIFY(plot.customPlot()->axisRect()->outerRect().height() < axes.height());
  }

  // Two runs far apart in loss: a click on the first's entry hides its lines on all four
  // plots and the axes follow the other; the export leaves it out too; a second click, or
  // another selection, shows it again. Alone, a run's entries hide one line each.
  void clickingAnEntryHidesItsLinesOnEveryPlot() {
    auto low = std::make_shared<RunCurves>("low run");
    auto high = std::make_shared<RunCurves>("high run");
    for (int s = 1; s <= 4; ++s) {
      low->addStep(loggedStep(s * 10, {1.0, 1.2}), true);
      high->addStep(loggedStep(s * 10, {10.0, 12.0}), true);
    }
    PlotPanel panel;
    panel.smoothingSlider()->setValue(60);  // faded raw lines under the smoothed ones
    panel.resize(1200, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.setRuns({low, high});
    PlotLegend* legend = panel.legend();
    MetricPlot* trainLoss = panel.plots()[0];
    QCOMPARE(legend->entries()[0].name, QString("low run"));
    QVERIFY(trainLoss->customPlot()->yAxis->range().lower < 1.0);
    QTest::mouseClick(legend, Qt::LeftButton, {}, legend->entryRect(0).center());
    QCOMPARE(legend->hiddenBlocks(), (QSet<int>{0}));
    for (MetricPlot* plot : panel.plots()) {
      QVERIFY2(!plot->blockShown(0) && plot->blockShown(1), qPrintable(plot->title()));
    }
    QVERIFY2(trainLoss->customPlot()->yAxis->range().lower > 5.0,
             qPrintable(QString::number(trainLoss->customPlot()->yAxis->range().lower)));
    QTemporaryDir out;
    QVERIFY(trainLoss->exportTo(out.filePath("plot.svg")).isEmpty());
    QFile svg(out.filePath("plot.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(svg.readAll());
    QVERIFY(text.contains("high run") && !text.contains("low run"));
    QStringList names;
    for (const LegendEntry& entry : trainLoss->legendEntries()) names << entry.name;
    QCOMPARE(names, (QStringList{"low run", "members 0–1 (thin)", "high run", "members 0–1 (thin)"}));  // order kept
    QTest::mouseClick(legend, Qt::LeftButton, {}, legend->entryRect(1).center());  // the members' entry: the same run
    QVERIFY(legend->hiddenBlocks().isEmpty());
    for (MetricPlot* plot : panel.plots()) QVERIFY(plot->blockShown(0));
    QVERIFY(trainLoss->customPlot()->yAxis->range().lower < 1.0);
    QTest::mouseClick(legend, Qt::LeftButton, {}, legend->entryRect(2).center());
    QVERIFY(!trainLoss->blockShown(1));
    panel.setRuns({low, high});  // selected anew: all shown
    QVERIFY(legend->hiddenBlocks().isEmpty() && trainLoss->blockShown(1));

    auto alone = std::make_shared<RunCurves>("alone");
    for (int s = 1; s <= 4; ++s) alone->addStep(loggedStep(s * 10, {1.0, 2.0, 3.0}), true);
    panel.setRuns({alone});
    names.clear();
    for (const LegendEntry& entry : legend->entries()) names << entry.name;
    QCOMPARE(names, (QStringList{"ensemble", "member 0", "member 1", "member 2"}));
    QTest::mouseClick(legend, Qt::LeftButton, {}, legend->entryRect(2).center());
    QVERIFY(trainLoss->blockShown(0) && trainLoss->blockShown(1) && !trainLoss->blockShown(2) && trainLoss->blockShown(3));
    int drawn = 0;  // member 1's smoothed and faded raw lines are both hidden
    for (int g = 0; g < trainLoss->customPlot()->graphCount(); ++g) drawn += trainLoss->customPlot()->graph(g)->visible();
    QCOMPARE(drawn, trainLoss->customPlot()->graphCount() - 2);
  }
};

QTEST_MAIN(TestPlotLegend)
#include "TestPlotLegend.moc"
