// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ShiftView.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

#include "core/common/ErrorMessage.h"
#include "ui/AnalysisController.h"
#include "ui/EngineMessage.h"
#include "ui/FlowLayout.h"
#include "ui/LegendRow.h"
#include "ui/MessageLabel.h"
#include "ui/PlotExport.h"
#include "ui/PlotTitle.h"
#include "ui/RunColors.h"
#include "ui/ShrinkableComboBox.h"

namespace ensemble::ui {
namespace {


struct KindChoice {
  ShiftKind kind;
  const char* label;
  const char* levels;  ///< a useful default range: from none to a clear collapse
};
const KindChoice kKinds[] = {
    {ShiftKind::Rotate, QT_TRANSLATE_NOOP("ShiftView", "rotation (degrees)"), "0,15,30,45,60,90"},
    {ShiftKind::Translate, QT_TRANSLATE_NOOP("ShiftView", "translation (pixels)"), "0,2,4,6,8"},
    {ShiftKind::Noise, QT_TRANSLATE_NOOP("ShiftView", "Gaussian noise (std)"), "0,0.1,0.2,0.4,0.6"},
    {ShiftKind::Contrast, QT_TRANSLATE_NOOP("ShiftView", "contrast loss (share)"), "0,0.25,0.5,0.75,0.9"},
};

QString curveKey(const QString& directory, ShiftKind kind) {
  return directory + '\n' + QString::fromStdString(shiftKindName(kind));
}

QCPAxisRect* panel(QCustomPlot* plot, int column, const QString& quantity) {
  QCPAxisRect* rect = column == 0 ? plot->axisRect(0) : new QCPAxisRect(plot);
  if (column > 0) plot->plotLayout()->addElement(1, column, rect);
  rect->axis(QCPAxis::atLeft)->setLabel(quantity);
  return rect;
}

}  // namespace

ShiftView::ShiftView(AnalysisController& analysis, QWidget* parent)
    : QWidget(parent),
      m_analysis(analysis),
      m_kind(new ShrinkableComboBox(16)),
      m_levels(new QLineEdit),
      m_compute(new QPushButton(tr("Compute"))),
      m_message(new MessageLabel),  // quotes the levels as typed
      m_plot(new QCustomPlot) {
  for (const KindChoice& choice : kKinds) m_kind->addItem(tr(choice.label), int(choice.kind));
  m_levels->setText(kKinds[0].levels);
  m_compute->setToolTip(tr("Evaluate the selected run(s) at every level, in the background"));
  m_plot->setObjectName("shiftPlot");
  m_plot->plotLayout()->insertRow(0);
  m_plot->plotLayout()->addElement(0, 0, new PlotTitle(m_plot, tr("Accuracy under dataset shift")));
  panel(m_plot, 0, tr("accuracy"));
  panel(m_plot, 1, tr("ECE"));
  m_plot->plotLayout()->addElement(0, 1, new PlotTitle(m_plot, tr("Calibration error under dataset shift")));
  m_plot->legend->setFont(QFont(font().family(), 8));
  // The legend under the panels, never over the curves (inside, it hid them from 35° to 85°).
  m_plot->axisRect(0)->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->addElement(2, 1, new QCPLayoutElement(m_plot));  // cell (2, 0): the legend's (LegendRow.h)
  m_plot->legend->setFillOrder(QCPLegend::foRowsFirst);
  m_plot->legend->setWrap(2);
  m_plot->legend->setBorderPen(Qt::NoPen);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);

  connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
    m_levels->setText(kKinds[index].levels);
    redraw();
  });
  connect(m_levels, &QLineEdit::textChanged, this, &ShiftView::checkLevels);
  connect(m_compute, &QPushButton::clicked, this, &ShiftView::compute);
  connect(&m_analysis, &AnalysisController::shiftCurveReady, this, &ShiftView::showCurve);

  auto* controls = new FlowLayout;  // on as many lines as the page's width needs
  controls->addWidget(sideBySide({new QLabel(tr("Shift:")), m_kind}));
  controls->addWidget(sideBySide({new QLabel(tr("levels:")), m_levels}), 1);
  controls->addWidget(m_compute);
  controls->addWidget(makePlotExportButton(m_plot, "dataset-shift", this, [this](const QString& error, const QString& path) {
    emit exported(error, path);
  }));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(m_message);
  layout->addWidget(m_plot, 1);
  m_message->hide();
}

ShiftKind ShiftView::kind() const { return ShiftKind(m_kind->currentData().toInt()); }

void ShiftView::setRuns(const RunChoices& runs) {
  m_runs = runs.mid(0, kComparedRuns);
  m_compute->setText(m_runs.size() > 1 ? tr("Compute for both runs") : tr("Compute"));
  redraw();
}

void ShiftView::compute() {
  m_message->hide();
  if (m_runs.isEmpty()) {
    m_message->setText(tr("Select one run in the Runs tab, or two to compare them (say a single model and an ensemble)."));
    return m_message->show();
  }
  if (!checkLevels()) return;
  std::vector<double> levels;
  for (const DatasetShift& shift : parseShifts(shiftSpec())) levels.push_back(shift.level);
  QStringList directories;
  for (const RunChoice& run : m_runs) directories << run.directory;
  m_analysis.sweepShift(directories, kind(), levels);
}

std::string ShiftView::shiftSpec() const {
  return shiftKindName(kind()) + ":" + m_levels->text().remove(QChar(' ')).toStdString();
}

bool ShiftView::checkLevels() {
  QString problem;
  try {
    parseShifts(shiftSpec());
  } catch (...) {
    // The engine's words name the kind as the CLI spells it ("of rotate"); the picker beside
    // the field already says which kind, in its own words.
    problem = inLabels(describeCurrentException()).replace(" of " + QString::fromStdString(shiftKindName(kind())), "");
  }
  // Marked as it is typed, as the Experiment form marks its fields (not only on Compute).
  m_levels->setStyleSheet(problem.isEmpty() ? QString() : "QLineEdit { border: 2px solid #d32f2f; }");
  m_levels->setToolTip(problem.isEmpty() ? tr("Shift levels, comma-separated; 0 is the test set as it is") : problem);
  m_message->setText(problem);
  m_message->setVisible(!problem.isEmpty());
  return problem.isEmpty();
}

void ShiftView::showCurve(const ShiftCurve& curve) {
  m_curves[curveKey(curve.runDirectory, curve.kind)] = curve;
  redraw();
}

void ShiftView::redraw() {
  m_plot->clearPlottables();
  QCPAxisRect* accuracyPanel = m_plot->axisRect(0);
  QCPAxisRect* ecePanel = m_plot->axisRect(1);
  const QString levelLabel = m_kind->currentText();
  double maxEce = 0.05;
  for (int r = 0; r < m_runs.size(); ++r) {
    const auto found = m_curves.constFind(curveKey(m_runs[r].directory, kind()));
    if (found == m_curves.constEnd()) continue;
    const ShiftCurve& curve = *found;
    const bool ensemble = !curve.results.empty() && curve.results.front().members.size() > 1;
    QVector<double> levels, accuracy, ece, memberAccuracy, memberEce;
    for (std::size_t i = 0; i < curve.levels.size(); ++i) {
      const EvaluationResult& result = curve.results[i];
      levels << curve.levels[i];
      accuracy << result.ensemble.accuracy;
      ece << result.ensemble.ece;
      memberAccuracy << result.meanMember.accuracy;
      memberEce << result.meanMember.ece;
      maxEce = std::max({maxEce, result.ensemble.ece, ensemble ? result.meanMember.ece : 0.0});
    }
    const auto addLine = [&](QCPAxisRect* rect, const QVector<double>& values, const QString& name, Qt::PenStyle style) {
      QCPGraph* graph = m_plot->addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
      graph->setData(levels, values, true);
      graph->setPen(QPen(runColor(r), style == Qt::SolidLine ? 2 : 1.2, style));
      graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, style == Qt::SolidLine ? 6 : 4));
      graph->setName(name);
      if (rect != accuracyPanel) graph->removeFromLegend();  // one legend for both panels
    };
    addLine(accuracyPanel, accuracy, m_runs[r].label, Qt::SolidLine);
    addLine(ecePanel, ece, m_runs[r].label, Qt::SolidLine);
    if (ensemble) {  // the typical member beside its ensemble: what averaging buys
      addLine(accuracyPanel, memberAccuracy, tr("%1: mean member").arg(m_runs[r].label), Qt::DashLine);
      addLine(ecePanel, memberEce, tr("%1: mean member").arg(m_runs[r].label), Qt::DashLine);
    }
  }
  for (QCPAxisRect* rect : {accuracyPanel, ecePanel}) {
    rect->axis(QCPAxis::atBottom)->setLabel(levelLabel);
    rect->axis(QCPAxis::atBottom)->rescale();
    const QCPRange levels = rect->axis(QCPAxis::atBottom)->range();
    const double pad = std::max(levels.size() * 0.04, 0.01);
    rect->axis(QCPAxis::atBottom)->setRange(levels.lower - pad, levels.upper + pad);
  }
  accuracyPanel->axis(QCPAxis::atLeft)->setRange(0, 1);
  ecePanel->axis(QCPAxis::atLeft)->setRange(0, maxEce * 1.1);
  placeLegendRow(m_plot, m_plot->legend, 2);
  m_plot->replot();
}

}  // namespace ensemble::ui
