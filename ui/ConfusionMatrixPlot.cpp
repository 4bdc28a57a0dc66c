// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ConfusionMatrixPlot.h"

#include <qcustomplot.h>

#include <QFontMetrics>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/ClassNames.h"
#include "ui/PlotExport.h"
#include "ui/PlotTitle.h"

namespace ensemble::ui {
namespace {

/// Above this many classes the cells are too small for their counts (47 classes ran them
/// into each other, 256 drew a black block of digits): the colours and a click on a cell
/// tell them, and only every k-th class is named on the axes.
constexpr int64_t kMostClassesWithCounts = 20;
/// The counts' type size, in points.
constexpr int kCountPointSize = 7;

}  // namespace

ConfusionMatrixPlot::ConfusionMatrixPlot(QWidget* parent) : QWidget(parent), m_plot(new QCustomPlot) {
  m_plot->setObjectName("confusionPlot");
  m_plot->plotLayout()->insertRow(0);
  m_title = new PlotTitle(m_plot, QString());
  m_plot->plotLayout()->addElement(0, 0, m_title);
  setTitle(tr("Confusion matrix of the ensemble's vote"), Qt::black);
  m_plot->xAxis->setLabel(tr("predicted class"));  // whose prediction: said once it is computed
  m_plot->yAxis->setLabel(tr("true class"));
  m_plot->yAxis->setRangeReversed(true);  // class 0 at the top, as tables read
  m_plot->setToolTip(tr("Click a cell to list its images in the gallery"));
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    if (const auto cell = cellAt(event->position())) emit cellClicked(*cell);
  });
  // Each layout (a resize, a replot) decides again whether the counts fit their cells.
  connect(m_plot, &QCustomPlot::afterLayout, this, &ConfusionMatrixPlot::showCountsThatFit);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  // Ten rows of class names and ten columns of counts still read at this width (two
  // compared runs' side by side in a 960-px window); narrower, the gallery beside it took
  // the room and the counts ran into each other.
  setMinimumWidth(220);
}

std::optional<ConfusionCell> ConfusionMatrixPlot::cellAt(const QPointF& position) const {
  if (!m_map || !m_plot->axisRect()->rect().contains(position.toPoint())) return std::nullopt;
  const int64_t predicted = std::lround(m_plot->xAxis->pixelToCoord(position.x()));
  const int64_t label = std::lround(m_plot->yAxis->pixelToCoord(position.y()));
  if (predicted < 0 || predicted >= m_classes || label < 0 || label >= m_classes) return std::nullopt;
  return ConfusionCell{label, predicted};
}

void ConfusionMatrixPlot::highlight(const std::optional<ConfusionCell>& cell) {
  if (m_outline) m_plot->removeItem(m_outline);
  m_outline = nullptr;
  if (cell && m_map) {
    m_outline = new QCPItemRect(m_plot);
    m_outline->topLeft->setCoords(double(cell->predicted) - 0.5, double(cell->label) + 0.5);
    m_outline->bottomRight->setCoords(double(cell->predicted) + 0.5, double(cell->label) - 0.5);
    m_outline->setPen(QPen(QColor(255, 140, 0), 3));
  }
  m_plot->replot();
}

void ConfusionMatrixPlot::showCountsThatFit() {
  // The counts are drawn where the widest fits its cell, whatever the class count: at the
  // window's 1400x900, ten classes' cells were 13 px wide and "364" ran into its neighbour,
  // reading "864". Hidden, the colours and a click on a cell (the gallery) tell them.
  if (m_classes <= 0) return;
  const QFontMetrics metrics(QFont(font().family(), kCountPointSize));
  QVector<QCPItemText*> counts;
  int widest = 0;
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(m_plot->item(i))) {
      counts.push_back(text);
      widest = std::max(widest, metrics.horizontalAdvance(text->text()));
    }
  }
  const QRect cells = m_plot->axisRect()->rect();
  const bool fit = widest + 2 <= cells.width() / double(m_classes) && metrics.height() <= cells.height() / double(m_classes);
  for (QCPItemText* text : counts) text->setVisible(fit);
}

void ConfusionMatrixPlot::setTitle(const QString& title, const QColor& color) {
  // The hint is the window's: an exported figure is titled without it.
  m_title->setText(tr("%1 (click a cell)").arg(title));
  m_title->setProperty(kExportTextProperty, title);
  m_title->setTextColor(color);
  m_plot->replot();
}

void ConfusionMatrixPlot::clear() {
  m_inspection.reset();
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_outline = nullptr;
  m_map = nullptr;  // owned by the plot, which has deleted it
  m_classes = 0;
  m_plot->xAxis->setLabel(tr("predicted class"));
  m_plot->replot();
}

void ConfusionMatrixPlot::showInspection(const std::shared_ptr<const Inspection>& inspection) {
  m_inspection = inspection;
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_outline = nullptr;
  m_classes = inspection->predictions.classes;
  // A single model's matrix is its own predictions: no ensemble voted.
  m_plot->xAxis->setLabel(inspection->predictions.members.size() > 1 ? tr("predicted by the ensemble")
                                                                     : tr("predicted by the model"));
  const std::vector<int64_t> counts = confusionMatrix(inspection->verdicts, m_classes);
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->setName(tr("images (true class y, predicted x)"));
  m_map->setInterpolate(false);
  m_map->data()->setSize(int(m_classes), int(m_classes));
  m_map->data()->setRange(QCPRange(0, double(m_classes - 1)), QCPRange(0, double(m_classes - 1)));
  int64_t largestMistake = 1;
  for (int64_t label = 0; label < m_classes; ++label) {
    for (int64_t predicted = 0; predicted < m_classes; ++predicted) {
      const int64_t count = counts[std::size_t(label * m_classes + predicted)];
      if (label != predicted) largestMistake = std::max(largestMistake, count);
      m_map->data()->setCell(int(predicted), int(label), double(count));
      if (m_classes > kMostClassesWithCounts) continue;
      auto* text = new QCPItemText(m_plot);
      text->position->setCoords(double(predicted), double(label));
      text->setText(QString::number(count));
      text->setFont(QFont(font().family(), kCountPointSize));
    }
  }
  // The colours span the mistakes only (the diagonal saturates), so the off-diagonal
  // cells are not washed out by the correct ones.
  QCPColorGradient gradient;
  gradient.setColorStopAt(0, QColor(250, 250, 250));
  gradient.setColorStopAt(1, QColor(8, 48, 107));
  m_map->setGradient(gradient);
  m_map->setDataRange(QCPRange(0, double(largestMistake)));
  // Colour the counts' text by the cell behind them to stay legible.
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    auto* text = static_cast<QCPItemText*>(m_plot->item(i));
    text->setColor(text->text().toLongLong() * 2 > largestMistake ? Qt::white : Qt::black);
  }
  QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
  const int64_t every = (m_classes + kMostClassesWithCounts - 1) / kMostClassesWithCounts;  // 1 up to 20 classes
  for (int64_t k = 0; k < m_classes; k += every) names->addTick(double(k), className(inspection->dataset, k));
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    axis->setTicker(names);
    axis->setRange(-0.5, double(m_classes) - 0.5);
    axis->setTickLabelFont(QFont(font().family(), 7));
  }
  m_plot->xAxis->setTickLabelRotation(45);
  m_plot->replot();
}

}  // namespace ensemble::ui
