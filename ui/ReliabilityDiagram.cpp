// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ReliabilityDiagram.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QHBoxLayout>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/metrics/EvaluationResult.h"
#include "ui/PlotExport.h"
#include "ui/PlotHint.h"
#include "ui/PlotTitle.h"
#include "ui/RunColors.h"

namespace ensemble::ui {
namespace {

// The first selected run's colour on every plot; the second's draws its comparison line.
const QColor kEnsembleColor = runColor(0);
const QColor kComparisonColor = runColor(1);
// Not a run's colour: the gap is no run's, and red is the second run's.
const QColor kGapColor(127, 127, 127);

/// Bin b's centre on the confidence axis.
double binCentre(std::size_t bin, std::size_t bins) { return (double(bin) + 0.5) / double(bins); }

}  // namespace

ReliabilityDiagram::ReliabilityDiagram(QWidget* parent)
    : QWidget(parent),
      m_plot(new QCustomPlot),
      m_hint(addPlotHint(m_plot)),
      m_emptyReason(noRunReason()),
      m_members(new QCheckBox(tr("Show each member"))) {
  m_plot->plotLayout()->insertRow(0);
  m_plot->plotLayout()->addElement(0, 0, new PlotTitle(m_plot, tr("Reliability (test set)")));
  m_plot->xAxis->setLabel(tr("confidence (top probability)"));
  m_plot->yAxis->setLabel(tr("accuracy"));
  m_plot->xAxis->setRange(0, 1);
  m_plot->yAxis->setRange(0, 1);
  m_plot->legend->setFont(QFont(font().family(), 8));
  // The legend beside the axes, not over the bars: with members shown it grows long.
  auto* side = new QCPLayoutGrid;
  m_plot->plotLayout()->addElement(1, 1, side);
  side->addElement(0, 0, m_plot->legend);
  side->addElement(1, 0, new QCPLayoutElement(m_plot));  // keeps the legend at the top
  side->setRowStretchFactor(1, 100);
  // Room at the right for the legend's border (it was cut at the widget's edge, also in
  // exported figures).
  side->setMargins(QMargins(0, 0, 6, 0));
  m_plot->plotLayout()->setColumnStretchFactor(1, 0.001);
  m_members->setToolTip(tr("Draw each member's accuracy per confidence bin as a thin line"));
  connect(m_members, &QCheckBox::toggled, this, &ReliabilityDiagram::redraw);
  auto* controls = new QHBoxLayout;
  controls->addWidget(m_members);
  controls->addStretch();
  controls->addWidget(makePlotExportButton(m_plot, "reliability", this, [this](const QString& error, const QString& path) {
    emit exported(error, path);
  }));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(m_plot, 1);
}

ReliabilityDiagram::~ReliabilityDiagram() = default;

void ReliabilityDiagram::showResult(const EvaluationResult& result, const QString& runLabel) {
  m_result = std::make_unique<EvaluationResult>(result);
  m_runLabel = runLabel;
  redraw();
}

QString ReliabilityDiagram::noRunReason() {
  return tr("Select a run in the Runs tab to see how well its confidence matches its accuracy");
}

void ReliabilityDiagram::clear(const QString& why) {
  m_emptyReason = why.isEmpty() ? noRunReason() : why;
  m_result.reset();
  m_runLabel.clear();
  m_comparison.reset();
  redraw();
}

QString ReliabilityDiagram::emptyHint() const { return m_hint->visible() ? plotHintText(m_hint) : QString(); }

void ReliabilityDiagram::setComparison(const EvaluationResult* result, const QString& runLabel) {
  m_comparison = result ? std::make_unique<EvaluationResult>(*result) : nullptr;
  m_comparisonLabel = runLabel;
  redraw();
}

void ReliabilityDiagram::redraw() {
  m_plot->clearPlottables();
  m_plot->legend->setVisible(false);
  const bool noBins = m_result && m_result->ensembleReliability.count.empty();  // a run from before the bins
  showPlotHint(m_hint, !m_result ? m_emptyReason
                       : noBins  ? tr("%1 was evaluated before reliability bins were recorded:\n"
                                      "evaluate it again (Run > Evaluate selected run)").arg(m_runLabel)
                                 : QString());
  if (!m_result || noBins) return m_plot->replot();
  const Reliability& ensemble = m_result->ensembleReliability;
  const std::size_t bins = ensemble.count.size();

  m_plot->setObjectName("reliabilityPlot");
  QCPGraph* diagonal = m_plot->addGraph();
  diagonal->setData({0, 1}, {0, 1});
  diagonal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
  diagonal->setName(tr("perfect calibration"));

  auto* accuracy = new QCPBars(m_plot->xAxis, m_plot->yAxis);
  accuracy->setWidth(1.0 / double(bins));
  accuracy->setPen(QPen(kEnsembleColor.darker(120)));
  accuracy->setBrush(kEnsembleColor);
  accuracy->setName(tr("%1: %2, ECE %3")
                        .arg(m_runLabel, m_result->members.size() > 1 ? tr("ensemble") : tr("model"))
                        .arg(m_result->ensemble.ece, 0, 'f', 4));
  // The gap: a translucent red bar stacked on the accuracy up to the confidence where the
  // model claims more than it delivers, and drawn from the confidence up where it claims less.
  auto* gap = new QCPBars(m_plot->xAxis, m_plot->yAxis);
  gap->setWidth(1.0 / double(bins));
  gap->setPen(QPen(kGapColor, 1));
  gap->setBrush(QColor(kGapColor.red(), kGapColor.green(), kGapColor.blue(), 70));
  gap->setName(tr("gap to the diagonal"));
  auto* under = new QCPBars(m_plot->xAxis, m_plot->yAxis);  // invisible base for a gap below
  under->setWidth(1.0 / double(bins));
  under->setPen(Qt::NoPen);
  under->setBrush(Qt::NoBrush);
  under->removeFromLegend();
  gap->moveAbove(under);
  for (std::size_t b = 0; b < bins; ++b) {
    if (ensemble.count[b] == 0) continue;
    const double x = binCentre(b, bins), acc = ensemble.accuracy[b], conf = ensemble.confidence[b];
    accuracy->addData(x, acc);
    under->addData(x, std::min(acc, conf));
    gap->addData(x, std::abs(conf - acc));
  }

  // The second selected run: its (ensemble's) accuracy per bin at the bins' confidence.
  if (m_comparison && !m_comparison->ensembleReliability.count.empty()) {
    const Reliability& other = m_comparison->ensembleReliability;
    QCPGraph* line = m_plot->addGraph();
    line->setPen(QPen(kComparisonColor, 2));
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 8));
    for (std::size_t b = 0; b < other.count.size(); ++b) {
      if (other.count[b] > 0) line->addData(other.confidence[b], other.accuracy[b]);
    }
    line->setName(tr("%1: %2, ECE %3")
                      .arg(m_comparisonLabel, m_comparison->members.size() > 1 ? tr("ensemble") : tr("model"))
                      .arg(m_comparison->ensemble.ece, 0, 'f', 4));
  }
  if (m_members->isChecked()) {
    for (std::size_t m = 0; m < m_result->memberReliability.size(); ++m) {
      const Reliability& member = m_result->memberReliability[m];
      QCPGraph* line = m_plot->addGraph();
      line->setPen(QPen(QColor::fromHsv(int(m * 360 / m_result->memberReliability.size()), 160, 200), 1));
      line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
      for (std::size_t b = 0; b < member.count.size(); ++b) {
        if (member.count[b] > 0) line->addData(member.confidence[b], member.accuracy[b]);
      }
      line->setName(tr("member %1, ECE %2").arg(m).arg(m_result->members[m].ece, 0, 'f', 4));
    }
  }
  m_plot->legend->setVisible(true);
  m_plot->replot();
}

}  // namespace ensemble::ui
