// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/EnsembleBreakdownView.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QStyle>
#include <QTableWidget>

#include <cmath>

#include "core/metrics/EvaluationResult.h"
#include "ui/CaptionLines.h"
#include "ui/LegendRow.h"
#include "ui/PlotTitle.h"
#include "ui/RunColors.h"

namespace ensemble::ui {

EnsembleBreakdownView::EnsembleBreakdownView(QWidget* parent)
    : QWidget(parent), m_caption(new QLabel), m_table(new QTableWidget(0, 5)), m_sizePlot(new QCustomPlot),
      m_splitter(new QSplitter(Qt::Horizontal)) {
  m_caption->setObjectName("breakdownCaption");
  m_caption->setTextFormat(Qt::PlainText);
  m_caption->setWordWrap(true);  // on one line, two long run names set the window's minimum width past 1400 px
  m_table->setHorizontalHeaderLabels({tr("Model"), tr("Accuracy"), tr("NLL"), tr("Brier"), tr("ECE")});
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_sizePlot->plotLayout()->insertRow(0);
  m_sizePlot->plotLayout()->addElement(0, 0, new PlotTitle(m_sizePlot, tr("Accuracy vs. ensemble size")));
  connect(m_sizePlot, &QCustomPlot::beforeReplot, this, &EnsembleBreakdownView::fitPlotToItsWidth);
  m_sizePlot->setToolTip(sizeAxisLabel());
  m_sizePlot->yAxis->setLabel(tr("test accuracy"));
  m_sizePlot->yAxis->setRange(0, 1);  // an accuracy's range until a run is shown
  // Two runs' curves are named under the axes, not over the points.
  m_sizePlot->legend->setFont(QFont(font().family(), 8));
  m_sizePlot->axisRect()->insetLayout()->take(m_sizePlot->legend);
  m_sizePlot->plotLayout()->insertRow(2);  // the legend's, while it shows a comparison (LegendRow.h)
  m_sizePlot->legend->setFillOrder(QCPLegend::foColumnsFirst);
  m_sizePlot->plotLayout()->setRowStretchFactor(2, 0.001);
  m_splitter->addWidget(m_table);
  m_splitter->addWidget(m_sizePlot);
  m_splitter->setStretchFactor(1, 1);
  m_splitter->setSizes({420, 800});
  connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_tableWidthChosen = true; });
  // The names whole ("member 11", "mean of members"), the numbers share the rest. (Not
  // setStretchLastSection as well: the last column then kept the header's default 100 px on
  // top of its share, and the ECE scrolled out of a 420-px table.)
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_caption);
  layout->addWidget(m_splitter, 1);
  clear(tr("Select a run in the Runs tab to see its members."));
}

QString EnsembleBreakdownView::caption() const { return m_caption->text(); }

void EnsembleBreakdownView::clear(const QString& why) {
  m_first.reset();
  m_second.reset();
  m_caption->setText(why);
  m_table->setRowCount(0);
  m_sizePlot->clearGraphs();
  m_sizePlot->yAxis->setRange(0, 1);
  m_sizePlot->replot();
}

void EnsembleBreakdownView::showResult(const EvaluationResult& result, const QString& runLabel) {
  m_first = Shown{result, runLabel};
  redraw();
}

void EnsembleBreakdownView::showComparison(const EvaluationResult* result, const QString& runLabel) {
  if (result) m_second = Shown{*result, runLabel};
  else m_second.reset();
  if (m_first) redraw();
}

void EnsembleBreakdownView::setUnshownRuns(int count) {
  m_unshown = count;
  if (m_first) redraw();
}

void EnsembleBreakdownView::redraw() {
  const auto describe = [this](const Shown& run) { return tr("%1 · %2 test images").arg(run.label).arg(run.result.samples); };
  QString caption = m_second ? tr("%1   vs   %2").arg(describe(*m_first), describe(*m_second)) : describe(*m_first);
  if (m_unshown > 0) caption += tr("   (%n more selected run(s) not shown: this tab compares two)", "", m_unshown);
  m_caption->setText(caption);
  m_table->clearSpans();
  m_table->setRowCount(0);
  m_sizePlot->clearGraphs();
  addRows(*m_first, bool(m_second), 0);
  addSizeCurve(m_first->result.accuracyVsSize, m_first->label, 0);
  if (m_second) {
    addRows(*m_second, true, 1);
    addSizeCurve(m_second->result.accuracyVsSize, m_second->label, 1);
  }
  // The x axis spans the larger ensemble; the y axis both curves and their bands.
  const std::size_t members = std::max(m_first->result.accuracyVsSize.mean.size(),
                                       m_second ? m_second->result.accuracyVsSize.mean.size() : std::size_t(0));
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);
  m_sizePlot->xAxis->setTicker(ticker);
  m_sizePlot->rescaleAxes();
  m_sizePlot->xAxis->setRange(0.5, double(members) + 0.5);
  const QCPRange y = m_sizePlot->yAxis->range();
  m_sizePlot->yAxis->setRange(y.lower - 0.005, y.upper + 0.005);
  m_sizePlot->replot();
  if (!m_tableWidthChosen) giveTheTableItsWidth();
}

void EnsembleBreakdownView::giveTheTableItsWidth() {
  QHeaderView* header = m_table->horizontalHeader();
  int scores = 2 * m_table->frameWidth() + m_table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_table);
  const QAbstractItemView* view = m_table;  // QTableView's override is protected; the base's is not
  for (int column = 0; column < m_table->columnCount(); ++column)
    scores += std::max(view->sizeHintForColumn(column), header->sectionSizeHint(column));
  // The splitter keeps these as the sizes wanted: narrower, the plot gives way down to its
  // least width, then the table; wider again, the table gets its width back and the plot the
  // rest (its stretch).
  const int both = m_splitter->width() - m_splitter->handleWidth();
  m_splitter->setSizes({scores, std::max(both - scores, 1)});
}

void EnsembleBreakdownView::fitPlotToItsWidth() {
  // The axis label breaks onto lines where the plot is narrower than it: on one line it was
  // cut at both ends when the table beside it took the room.
  const QMargins margins = m_sizePlot->axisRect()->margins();
  const double width = m_sizePlot->viewport().width() - margins.left() - margins.right();
  // Past two lines it takes the axes' height: then the short form, the whole in the tooltip.
  const QStringList lines = captionLines(sizeAxisLabel(), m_sizePlot->xAxis->labelFont(), width);
  m_sizePlot->xAxis->setLabel(lines.size() <= 2 ? lines.join('\n') : tr("members k"));
  // Comparing two runs, the legend names their curves; where the plot is too narrow for a
  // name, the table's rows beside it do, in the curves' colours.
  const bool fits = fitLegendToPlotWidth(m_sizePlot, m_sizePlot->legend);
  placeLegendRow(m_sizePlot, m_sizePlot->legend, 2, 0, m_second && fits);
}

void EnsembleBreakdownView::addRows(const Shown& run, bool named, int index) {
  const EvaluationResult& result = run.result;
  const auto addRow = [this](const QString& name, double accuracy, double nll, double brier, double ece, bool bold) {
    const int r = m_table->rowCount();
    m_table->insertRow(r);
    const QStringList cells{name, number(accuracy), number(nll), number(brier), number(ece)};
    for (int c = 0; c < int(cells.size()); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      QFont f = item->font();
      f.setBold(bold);
      item->setFont(f);
      m_table->setItem(r, c, item);
    }
  };
  if (named) {  // whose rows follow, across the table, in the run's colour
    const int r = m_table->rowCount();
    m_table->insertRow(r);
    auto* item = new QTableWidgetItem(run.label);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
    item->setForeground(runColor(index));
    m_table->setItem(r, 0, item);
    m_table->setSpan(r, 0, 1, m_table->columnCount());
  }
  // The ensemble and the members' mean first: in view however many members there are.
  if (result.members.size() > 1) {
    const EnsembleScore& e = result.ensemble;
    addRow(tr("ensemble"), e.accuracy, e.nll, e.brier, e.ece, true);
    const TestScore& mean = result.meanMember;
    addRow(tr("mean of members"), mean.accuracy, mean.loss, mean.brier, mean.ece, false);
  }
  for (std::size_t m = 0; m < result.members.size(); ++m) {
    const TestScore& s = result.members[m];
    addRow(result.members.size() > 1 ? tr("member %1").arg(m) : tr("model"), s.accuracy, s.loss, s.brier, s.ece, false);
  }
}

QString EnsembleBreakdownView::sizeAxisLabel() {
  return tr("members k (mean over k-member subsets; band: worst to best)");
}

QString EnsembleBreakdownView::number(double value) {
  return std::isnan(value) ? QString() : QString::number(value, 'f', 4);  // NaN: the run did not record it
}

void EnsembleBreakdownView::addSizeCurve(const EnsembleSizeCurve& curve, const QString& name, int index) {
  const QColor color = runColor(index);
  // The band between the worst and the best k-member subset, under the mean.
  QCPGraph* best = m_sizePlot->addGraph();
  QCPGraph* worst = m_sizePlot->addGraph();
  for (QCPGraph* edge : {best, worst}) {
    edge->setPen(QPen(QColor(color.red(), color.green(), color.blue(), 90), 1));
    edge->removeFromLegend();
  }
  best->setBrush(QColor(color.red(), color.green(), color.blue(), 40));
  best->setChannelFillGraph(worst);
  QCPGraph* mean = m_sizePlot->addGraph();
  mean->setPen(QPen(color, 2));
  mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
  mean->setName(name);
  for (std::size_t k = 0; k < curve.mean.size(); ++k) {
    mean->addData(double(k + 1), curve.mean[k]);
    if (k < curve.min.size() && k < curve.max.size()) {
      worst->addData(double(k + 1), curve.min[k]);
      best->addData(double(k + 1), curve.max[k]);
    }
  }
}

}  // namespace ensemble::ui
