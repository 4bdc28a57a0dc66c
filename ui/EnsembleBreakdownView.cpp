// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/EnsembleBreakdownView.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QVBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTableWidget>

#include <cmath>

#include "core/metrics/EvaluationResult.h"

namespace ensemble::ui {

EnsembleBreakdownView::EnsembleBreakdownView(QWidget* parent)
    : QWidget(parent), m_caption(new QLabel), m_table(new QTableWidget(0, 5)), m_sizePlot(new QCustomPlot) {
  m_caption->setObjectName("breakdownCaption");
  m_caption->setTextFormat(Qt::PlainText);
  m_table->setHorizontalHeaderLabels({tr("Model"), tr("Accuracy"), tr("NLL"), tr("Brier"), tr("ECE")});
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_sizePlot->plotLayout()->insertRow(0);
  m_sizePlot->plotLayout()->addElement(
      0, 0, new QCPTextElement(m_sizePlot, tr("Accuracy vs. ensemble size"), QFont(font().family(), 10, QFont::Bold)));
  m_sizePlot->xAxis->setLabel(tr("members k (mean over k-member subsets; band: worst to best)"));
  m_sizePlot->yAxis->setLabel(tr("test accuracy"));
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(m_table);
  splitter->addWidget(m_sizePlot);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({420, 800});
  // The names whole ("member 11", "mean of members"), the numbers share the rest.
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_caption);
  layout->addWidget(splitter, 1);
  clear(tr("Select a run in the Runs tab to see its members."));
}

QString EnsembleBreakdownView::caption() const { return m_caption->text(); }

void EnsembleBreakdownView::clear(const QString& why) {
  m_caption->setText(why);
  m_table->setRowCount(0);
  m_sizePlot->clearGraphs();
  m_sizePlot->replot();
}

void EnsembleBreakdownView::showResult(const EvaluationResult& result, const QString& runLabel) {
  m_caption->setText(tr("%1 · %2 test images").arg(runLabel).arg(result.samples));
  m_table->setRowCount(0);
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
  showSizeCurve(result.accuracyVsSize);
}

QString EnsembleBreakdownView::number(double value) {
  return std::isnan(value) ? QString() : QString::number(value, 'f', 4);  // NaN: the run did not record it
}

void EnsembleBreakdownView::showSizeCurve(const EnsembleSizeCurve& curve) {
  m_sizePlot->clearGraphs();
  // The band between the worst and the best k-member subset, under the mean.
  QCPGraph* best = m_sizePlot->addGraph();
  QCPGraph* worst = m_sizePlot->addGraph();
  for (QCPGraph* edge : {best, worst}) edge->setPen(QPen(QColor(31, 119, 180, 90), 1));
  best->setBrush(QColor(31, 119, 180, 40));
  best->setChannelFillGraph(worst);
  QCPGraph* mean = m_sizePlot->addGraph();
  mean->setPen(QPen(QColor(31, 119, 180), 2));
  mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
  for (std::size_t k = 0; k < curve.mean.size(); ++k) {
    mean->addData(double(k + 1), curve.mean[k]);
    if (k < curve.min.size() && k < curve.max.size()) {
      worst->addData(double(k + 1), curve.min[k]);
      best->addData(double(k + 1), curve.max[k]);
    }
  }
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);
  m_sizePlot->xAxis->setTicker(ticker);
  m_sizePlot->rescaleAxes();
  m_sizePlot->xAxis->setRange(0.5, double(curve.mean.size()) + 0.5);
  const QCPRange y = m_sizePlot->yAxis->range();
  m_sizePlot->yAxis->setRange(y.lower - 0.005, y.upper + 0.005);
  m_sizePlot->replot();
}

}  // namespace ensemble::ui
