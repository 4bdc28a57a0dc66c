// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/OodView.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/common/ErrorMessage.h"
#include "core/data/DatasetSource.h"
#include "core/data/OutOfDistributionSets.h"
#include "ui/AnalysisController.h"
#include "ui/DialogFolders.h"
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

constexpr int kBins = 30;
const QColor kInColor(31, 119, 180);
const QColor kOutColor(214, 39, 40);

QString scoreKey(const QString& directory, const QString& set) { return directory + '\n' + set; }

/// Each bin's share of the set's images: the two sets may differ in size.
QCPBars* densityBars(QCPAxisRect* panel, const std::vector<double>& entropy, double maxEntropy, const QColor& color,
                     const QString& name) {
  const Histogram counts = histogram(entropy, kBins, 0, maxEntropy);
  auto* bars = new QCPBars(panel->axis(QCPAxis::atBottom), panel->axis(QCPAxis::atLeft));
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
      m_dataset(new ShrinkableComboBox(16)),
      m_compute(new QPushButton(tr("Compute"))),
      m_description(new MessageLabel),
      m_members(new MessageLabel),
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
  connect(m_dataset, &QComboBox::currentTextChanged, this, [this] {
    describeChosenSet();
    redraw();  // the scores of the newly chosen set, where they were computed
  });
  auto* browse = new QPushButton(tr("Folder…"));
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString folder = dialogs::existingDirectory(this, tr("Open an MNIST-format dataset folder"), dialogs::Place::Datasets);
    if (folder.isEmpty()) return;
    if (const QString error = addDatasetFolder(folder); !error.isEmpty()) emit folderRefused(error);
  });
  m_compute->setToolTip(tr("Score the chosen dataset against the selected run's test set, in the background"));
  connect(m_compute, &QPushButton::clicked, this, &OodView::compute);
  connect(&m_analysis, &AnalysisController::outOfDistributionReady, this, &OodView::showScores);
  m_members->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_plot->setObjectName("oodPlot");
  m_plot->setAutoAddPlottableToLegend(false);  // each panel's plottables go in its own legend
  m_plot->plotLayout()->insertRow(0);
  for (int column = 0; column < kComparedRuns; ++column) {
    m_titles[column] = new PlotTitle(m_plot, tr("Out of distribution: the ensemble's entropy"));
    m_panels[column] = column == 0 ? m_plot->axisRect(0) : new QCPAxisRect(m_plot);
    m_panels[column]->axis(QCPAxis::atBottom)->setLabel(tr("predictive entropy (nats)"));
    m_panels[column]->axis(QCPAxis::atLeft)->setLabel(tr("share of images"));
    m_panels[column]->axis(QCPAxis::atLeft)->setRange(0, 1);  // until a run's scores are drawn
    // The legends under the axes: the histograms fill the panel from one side to the other.
    m_legends[column] = column == 0 ? m_plot->legend : new QCPLegend;
    m_legends[column]->setFont(QFont(font().family(), 8));
    m_legends[column]->setFillOrder(QCPLegend::foRowsFirst);
    m_legends[column]->setBorderPen(Qt::NoPen);  // both alike, and none cut at the plot's edge
  }
  m_plot->plotLayout()->addElement(0, 0, m_titles[0]);
  m_plot->axisRect(0)->insetLayout()->take(m_legends[0]);  // under the axes while a run is shown (LegendRow.h)

  auto* controls = new FlowLayout;  // on as many lines as the page's width needs
  controls->addWidget(sideBySide({new QLabel(tr("Out-of-distribution dataset:")), m_dataset}), 1);
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
  redraw();
}

OodView::~OodView() {
  // The plot owns what its layout holds; the second panel's legend has no owner while it
  // is out of the layout (one run shown), so it goes here.
  if (!m_legends[1]->layout()) delete m_legends[1];
}

void OodView::describeChosenSet() {
  const QString chosen = m_dataset->currentText().trimmed();
  const std::string builtIn = describeOutOfDistributionSet(chosen.toStdString());
  const QString problem = problemWithChosenSet();
  m_description->setStyleSheet(problem.isEmpty() ? "color: #555;" : "color: #b00020;");
  m_description->setText(!problem.isEmpty()        ? problem
                         : !builtIn.empty()          ? tr("%1: %2").arg(chosen, QString::fromStdString(builtIn))
                         : chosen == "fashion-mnist" ? tr("fashion-mnist: Fashion-MNIST's test set, in distribution for a "
                                                          "Fashion-MNIST run (AUROC near 0.5: a baseline)")
                         : chosen == "synthetic"     ? tr("synthetic: the generated 16x16 set")
                                                     : tr("%1: the test files of this MNIST-format folder").arg(chosen));
}

QString OodView::problemWithChosenSet() const {
  // The picker is editable (a path may be typed or pasted): what is neither a set it knows
  // nor a folder is said as it is typed, in this page's words, not when Compute is pressed.
  const QString chosen = m_dataset->currentText().trimmed();
  if (chosen.isEmpty()) return tr("Choose an out-of-distribution set from the list, or a folder with Folder…");
  if (!describeOutOfDistributionSet(chosen.toStdString()).empty() || chosen == "fashion-mnist" || chosen == "synthetic" ||
      QFileInfo(chosen).isDir()) {
    return {};
  }
  QStringList sets;
  for (const std::string& name : builtInOutOfDistributionSets()) sets << QString::fromStdString(name);
  sets << "fashion-mnist";
  return tr("%1 is neither a set in the list nor a folder: pick a set from the list (%2), or a folder of "
            "MNIST-format files with Folder…")
      .arg(chosen, sets.join(", "));
}

QString OodView::chooseSet(const QString& set) {
  if (QFileInfo(set).isDir()) return addDatasetFolder(set);
  m_dataset->setCurrentText(set);
  return problemWithChosenSet();
}

QString OodView::chosenSet() const { return m_dataset->currentText().trimmed(); }

void OodView::setRuns(const RunChoices& runs) {
  m_runs = runs.mid(0, kComparedRuns);
  redraw();
}

QString OodView::addDatasetFolder(const QString& folder) {
  // Checked now, from the IDX headers, rather than after the run has been opened.
  ImageSize size;
  try {
    size = testImageSize(folder.toStdString());
  } catch (...) {
    return inLabels(describeCurrentException());
  }
  for (const RunChoice& run : m_runs) {
    ImageSize expected;
    try {
      expected = testImageSize(run.dataset.toStdString());
    } catch (...) {
      continue;  // the run's own data is gone: Compute says what it can
    }
    if (expected.height != size.height || expected.width != size.width) {
      return tr("%1 holds %2x%3 images, but %4 was trained on %5x%6 images; choose a folder of %5x%6 images, "
                "or one of the sets made from the run (inverted, uniform-noise).")
          .arg(folder).arg(size.height).arg(size.width).arg(run.label).arg(expected.height).arg(expected.width);
    }
  }
  if (m_dataset->findText(folder) < 0) m_dataset->addItem(folder);
  m_dataset->setCurrentText(folder);
  return {};
}

void OodView::compute() {
  if (m_runs.isEmpty()) {
    m_members->setText(tr("Select a run in the Runs tab first."));
    return;
  }
  if (const QString problem = problemWithChosenSet(); !problem.isEmpty()) return m_members->setText(problem);
  QStringList directories;
  for (const RunChoice& run : m_runs) directories << run.directory;
  m_analysis.scoreOutOfDistribution(directories, chosenSet());
}

void OodView::showScores(const OutOfDistribution& scores) {
  m_scores.insert(scoreKey(scores.runDirectory, scores.dataset), scores.result);
  redraw();
}

void OodView::layOutPanels(int count) {
  QCPLayoutGrid* grid = m_plot->plotLayout();
  const bool secondShown = m_panels[1]->layout() != nullptr;
  if (count > 1 && !secondShown) {
    grid->addElement(0, 1, m_titles[1]);
    grid->addElement(1, 1, m_panels[1]);
    grid->addElement(2, 1, m_legends[1]);
  } else if (count <= 1 && secondShown) {
    const std::array<QCPLayoutElement*, 3> secondColumn{m_titles[1], m_panels[1], m_legends[1]};
    for (QCPLayoutElement* element : secondColumn) grid->take(element);
    grid->simplify();
  }
  for (int column = 0; column < kComparedRuns; ++column) m_legends[column]->setVisible(column < count);
  // Out of the layout the second panel keeps a stale rectangle, where it would still be drawn
  // (its axis label showed through at the plot's top left corner).
  m_titles[1]->setVisible(count > 1);
  m_panels[1]->setVisible(count > 1);
}

void OodView::placeFirstLegend() {
  placeLegendRow(m_plot, m_legends[0], 2);
  // The second panel's legend may have made row 2 afresh (layOutPanels): the legends' height only.
  if (m_plot->plotLayout()->rowCount() > 2) m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
}

void OodView::redraw() {
  m_legends[1]->clearItems();  // the plot removes its plottables from its own legend only
  m_plot->clearPlottables();
  const QString set = chosenSet();
  QStringList members, missing;
  int scored = 0;
  for (const RunChoice& run : m_runs) scored += m_scores.contains(scoreKey(run.directory, set));
  layOutPanels(scored);  // first: a legend takes entries only once it is in the plot
  int drawn = 0;
  for (const RunChoice& run : m_runs) {
    const auto found = m_scores.constFind(scoreKey(run.directory, set));
    if (found == m_scores.constEnd()) {
      missing << run.label;
      continue;
    }
    const OodResult& ood = *found;
    QCPAxisRect* panel = m_panels[drawn];
    QCPLegend* legend = m_legends[drawn];
    m_titles[drawn]->setText(m_runs.size() > 1 ? run.label : tr("%1: entropy on its test set and out of distribution").arg(run.label));
    m_titles[drawn]->setTextColor(m_runs.size() > 1 ? runColor(int(&run - m_runs.data())) : Qt::black);
    double maxEntropy = 1e-6;
    for (const std::vector<double>* entropies : {&ood.ensembleEntropyIn, &ood.ensembleEntropyOut}) {
      for (const double h : *entropies) maxEntropy = std::max(maxEntropy, h);
    }
    const bool ensemble = ood.members.size() > 1;
    QCPBars* in = densityBars(panel, ood.ensembleEntropyIn, maxEntropy, kInColor, tr("in: its test set (%1 images)").arg(ood.inSamples));
    QCPBars* out = densityBars(panel, ood.ensembleEntropyOut, maxEntropy, kOutColor,
                               tr("out: %1 (%2 images)").arg(QFileInfo(QString::fromStdString(ood.dataset)).fileName()).arg(ood.outSamples));
    // An empty series carries the AUROCs into the legend, where the eye looks for them.
    QCPGraph* auroc = m_plot->addGraph(panel->axis(QCPAxis::atBottom), panel->axis(QCPAxis::atLeft));
    auroc->setPen(Qt::NoPen);
    auroc->setName(ensemble ? tr("AUROC: %1 by entropy, %2 by max prob., %3 by mutual info.")
                                  .arg(ood.ensemble.entropy, 0, 'f', 3).arg(ood.ensemble.maxProbability, 0, 'f', 3)
                                  .arg(ood.ensemble.mutualInformation, 0, 'f', 3)
                            : tr("AUROC: %1 by entropy, %2 by max prob.")
                                  .arg(ood.ensemble.entropy, 0, 'f', 3).arg(ood.ensemble.maxProbability, 0, 'f', 3));
    for (QCPAbstractPlottable* plottable : std::array<QCPAbstractPlottable*, 3>{in, out, auroc}) {
      plottable->addToLegend(legend);
      plottable->setProperty(kExportPanelProperty, run.label);  // the CSV's rows say whose (two runs' are alike)
    }
    panel->axis(QCPAxis::atBottom)->setRange(0, maxEntropy * 1.02);
    panel->axis(QCPAxis::atLeft)->rescale();
    panel->axis(QCPAxis::atLeft)->setRangeLower(0);
    QStringList scores;
    for (std::size_t m = 0; m < ood.members.size(); ++m) {
      scores << tr("member %1: %2 / %3").arg(m).arg(ood.members[m].entropy, 0, 'f', 3).arg(ood.members[m].maxProbability, 0, 'f', 3);
    }
    members << (m_runs.size() > 1 ? tr("%1: %2").arg(run.label, scores.join(" · ")) : scores.join(" · "));
    ++drawn;
  }
  if (drawn == 0) m_titles[0]->setText(tr("Out of distribution: the ensemble's entropy"));
  placeFirstLegend();
  m_plot->replot();

  QString text;
  if (!members.isEmpty()) {
    text = tr("AUROC by entropy / max probability per model (0.5 is chance, 1 separates the sets): %1").arg(members.join("\n"));
  }
  if (m_runs.isEmpty()) {
    text = tr("Select a run in the Runs tab first.");
  } else if (!missing.isEmpty() && problemWithChosenSet().isEmpty()) {  // else the line above says what is wrong
    text += QString(text.isEmpty() ? "" : "\n") + tr("Compute to score %1 on %2.").arg(missing.join(tr(" and ")), set);
  }
  m_members->setText(text);
}

}  // namespace ensemble::ui
