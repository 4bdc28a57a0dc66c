#include "ui/EnsembleBreakdownView.h"

#include <qcustomplot.h>

#include <QHBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTableWidget>

#include <cmath>

#include "core/metrics/EvaluationResult.h"

namespace ensemble::ui {

EnsembleBreakdownView::EnsembleBreakdownView(QWidget* parent)
    : QWidget(parent), m_table(new QTableWidget(0, 3)), m_sizePlot(new QCustomPlot) {
  m_table->setHorizontalHeaderLabels({tr("Model"), tr("Test accuracy"), tr("Test loss")});
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->verticalHeader()->hide();
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_sizePlot->plotLayout()->insertRow(0);
  m_sizePlot->plotLayout()->addElement(
      0, 0, new QCPTextElement(m_sizePlot, tr("Accuracy vs. ensemble size"), QFont(font().family(), 10, QFont::Bold)));
  m_sizePlot->xAxis->setLabel(tr("members k (first k averaged)"));
  m_sizePlot->yAxis->setLabel(tr("test accuracy"));
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(m_table);
  splitter->addWidget(m_sizePlot);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({420, 800});
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
}

void EnsembleBreakdownView::showResult(const EvaluationResult& result) {
  m_table->setRowCount(0);
  const auto addRow = [this](const QString& name, double accuracy, double loss, bool bold) {
    const int r = m_table->rowCount();
    m_table->insertRow(r);
    const QStringList cells{name, QString::number(accuracy, 'f', 4),
                            std::isnan(loss) ? QString() : QString::number(loss, 'f', 4)};
    for (int c = 0; c < 3; ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      QFont f = item->font();
      f.setBold(bold);
      item->setFont(f);
      m_table->setItem(r, c, item);
    }
  };
  double mean = 0;
  for (std::size_t m = 0; m < result.members.size(); ++m) {
    addRow(tr("member %1").arg(m), result.members[m].accuracy, result.members[m].loss, false);
    mean += result.members[m].accuracy / double(result.members.size());
  }
  if (result.members.size() > 1) {
    addRow(tr("mean of members"), mean, std::nan(""), false);
    addRow(tr("ensemble"), result.ensemble.accuracy, result.ensemble.nll, true);
  }
  m_sizePlot->clearGraphs();
  QCPGraph* graph = m_sizePlot->addGraph();
  graph->setPen(QPen(QColor(31, 119, 180), 2));
  graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 7));
  const auto& curve = result.accuracyVsSize;
  for (std::size_t k = 0; k < curve.size(); ++k) graph->addData(double(k + 1), curve[k]);
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);
  m_sizePlot->xAxis->setTicker(ticker);
  m_sizePlot->rescaleAxes();
  m_sizePlot->xAxis->setRange(0.5, double(curve.size()) + 0.5);
  const QCPRange y = m_sizePlot->yAxis->range();
  m_sizePlot->yAxis->setRange(y.lower - 0.005, y.upper + 0.005);
  m_sizePlot->replot();
}

}  // namespace ensemble::ui
