// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/OodView.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/data/OutOfDistributionSets.h"
#include "ui/AnalysisController.h"
#include "ui/DialogFolders.h"
#include "ui/PlotExport.h"

namespace ensemble::ui {
namespace {

constexpr int kBins = 30;
const QColor kInColor(31, 119, 180);
const QColor kOutColor(214, 39, 40);

/// Each bin's share of the set's images: the two sets may differ in size.
QCPBars* densityBars(QCustomPlot* plot, const std::vector<double>& entropy, double maxEntropy, const QColor& color,
                     const QString& name) {
  const Histogram counts = histogram(entropy, kBins, 0, maxEntropy);
  auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
  bars->setWidth(counts.binWidth);
  bars->setPen(QPen(color.darker(130)));
  bars->setBrush(QColor(color.red(), color.green(), color.blue(), 90));
  for (std::size_t b = 0; b < counts.counts.size(); ++b) {
    bars->addData(counts.low + (double(b) + 0.5) * counts.binWidth, double(counts.counts[b]) / double(std::max<std::size_t>(entropy.size(), 1)));
  }
  bars->setName(name);
  return bars;
}

}  // namespace

OodView::OodView(AnalysisController& analysis, QWidget* parent)
    : QWidget(parent),
      m_analysis(analysis),
      m_dataset(new QComboBox),
      m_compute(new QPushButton(tr("Compute"))),
      m_description(new QLabel),
      m_members(new QLabel),
      m_plot(new QCustomPlot) {
  m_dataset->setEditable(true);
  // Sets made from the run itself first: they work with any run's models. (A dataset of
  // another image size, such as the 16x16 synthetic set, is refused by a Fashion-MNIST
  // model, so it is not offered.)
  for (const std::string& name : builtInOutOfDistributionSets()) m_dataset->addItem(QString::fromStdString(name));
  m_dataset->addItem("fashion-mnist");
  m_dataset->setToolTip(tr("The out-of-distribution set: a set made from the run, a dataset name, or an "
                           "MNIST-format folder with images of the run's size"));
  m_description->setObjectName("oodDescription");
  m_description->setStyleSheet("color: #555;");
  connect(m_dataset, &QComboBox::currentTextChanged, this, &OodView::describeChosenSet);
  auto* browse = new QPushButton(tr("Folder…"));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString folder = dialogs::existingDirectory(this, tr("Open an MNIST-format dataset folder"), dialogs::Place::Datasets);
    if (!folder.isEmpty()) addDatasetFolder(folder);
  });
  m_compute->setToolTip(tr("Score the chosen dataset against the selected run's test set, in the background"));
  connect(m_compute, &QPushButton::clicked, this, &OodView::compute);
  connect(&m_analysis, &AnalysisController::outOfDistributionReady, this, &OodView::showScores);
  m_members->setWordWrap(true);
  m_members->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_plot->setObjectName("oodPlot");
  m_plot->plotLayout()->insertRow(0);
  m_title = new QCPTextElement(m_plot, tr("Out of distribution: the ensemble's entropy"),
                               QFont(font().family(), 10, QFont::Bold));
  m_plot->plotLayout()->addElement(0, 0, m_title);
  m_plot->xAxis->setLabel(tr("predictive entropy (nats)"));
  m_plot->yAxis->setLabel(tr("share of images"));
  m_plot->legend->setFont(QFont(font().family(), 8));
  // The legend under the axes: the histograms fill the plot from one side to the other.
  m_plot->plotLayout()->addElement(2, 0, m_plot->legend);
  m_plot->legend->setFillOrder(QCPLegend::foRowsFirst);
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Out-of-distribution dataset:")));
  controls->addWidget(m_dataset, 1);
  controls->addWidget(browse);
  controls->addWidget(m_compute);
  controls->addWidget(makePlotExportButton(m_plot, "out-of-distribution", this, [this](const QString& error, const QString& path) {
    emit exported(error, path);
  }));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(m_description);
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_members);
  describeChosenSet();
}

void OodView::describeChosenSet() {
  const QString chosen = m_dataset->currentText().trimmed();
  const std::string builtIn = describeOutOfDistributionSet(chosen.toStdString());
  m_description->setText(!builtIn.empty()          ? tr("%1: %2").arg(chosen, QString::fromStdString(builtIn))
                         : chosen == "fashion-mnist" ? tr("fashion-mnist: Fashion-MNIST's test set, in distribution for a "
                                                          "Fashion-MNIST run (AUROC near 0.5: a baseline)")
                                                     : tr("%1: the test files of this MNIST-format folder").arg(chosen));
}

void OodView::setRuns(const RunChoices& runs) {
  m_runs = runs.mid(0, 1);
  if (!m_shownDirectory.isEmpty() && (m_runs.isEmpty() || m_runs.front().directory != m_shownDirectory)) {
    clearScores(m_runs.isEmpty() ? tr("Select a run in the Runs tab first.")
                                 : tr("Compute to score %1.").arg(m_runs.front().label));
  }
}

void OodView::clearScores(const QString& why) {
  m_shownDirectory.clear();
  m_plot->clearPlottables();
  m_plot->legend->setVisible(false);
  m_title->setText(tr("Out of distribution: the ensemble's entropy"));
  m_plot->replot();
  m_members->setText(why);
}

void OodView::addDatasetFolder(const QString& folder) {
  if (m_dataset->findText(folder) < 0) m_dataset->addItem(folder);
  m_dataset->setCurrentText(folder);
}

void OodView::compute() {
  if (m_runs.isEmpty()) {
    m_members->setText(tr("Select a run in the Runs tab first."));
    return;
  }
  m_analysis.scoreOutOfDistribution(m_runs.front().directory, m_dataset->currentText().trimmed());
}

void OodView::showScores(const OutOfDistribution& scores) {
  // Scores of a run no longer selected (the selection moved while they were computed).
  if (m_runs.isEmpty() || scores.runDirectory != m_runs.front().directory) return;
  m_shownDirectory = scores.runDirectory;
  m_title->setText(tr("%1: entropy on its test set and out of distribution").arg(m_runs.front().label));
  const OodResult& ood = scores.result;
  m_plot->clearPlottables();
  double maxEntropy = 1e-6;
  for (const std::vector<double>* set : {&ood.ensembleEntropyIn, &ood.ensembleEntropyOut}) {
    for (const double h : *set) maxEntropy = std::max(maxEntropy, h);
  }
  const bool ensemble = ood.members.size() > 1;
  densityBars(m_plot, ood.ensembleEntropyIn, maxEntropy, kInColor,
              tr("in: its test set (%1 images)").arg(ood.inSamples));
  densityBars(m_plot, ood.ensembleEntropyOut, maxEntropy, kOutColor,
              tr("out: %1 (%2 images)").arg(QFileInfo(QString::fromStdString(ood.dataset)).fileName()).arg(ood.outSamples));
  // An empty series carries the AUROCs into the legend, where the eye looks for them.
  QCPGraph* auroc = m_plot->addGraph();
  auroc->setPen(Qt::NoPen);
  auroc->setName(ensemble ? tr("AUROC %1 by entropy, %2 by max probability, %3 by mutual information")
                                .arg(ood.ensemble.entropy, 0, 'f', 3).arg(ood.ensemble.maxProbability, 0, 'f', 3)
                                .arg(ood.ensemble.mutualInformation, 0, 'f', 3)
                          : tr("AUROC %1 by entropy, %2 by max probability")
                                .arg(ood.ensemble.entropy, 0, 'f', 3).arg(ood.ensemble.maxProbability, 0, 'f', 3));
  m_plot->xAxis->setRange(0, maxEntropy * 1.02);
  m_plot->yAxis->rescale();
  m_plot->yAxis->setRangeLower(0);
  m_plot->legend->setVisible(true);
  m_plot->replot();

  QStringList members;
  for (std::size_t m = 0; m < ood.members.size(); ++m) {
    members << tr("member %1: %2 / %3").arg(m).arg(ood.members[m].entropy, 0, 'f', 3).arg(ood.members[m].maxProbability, 0, 'f', 3);
  }
  m_members->setText(tr("AUROC by entropy / max probability per model (0.5 is chance, 1 separates the sets): %1")
                         .arg(members.join(" · ")));
}

}  // namespace ensemble::ui
