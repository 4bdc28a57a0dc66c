// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/MistakesView.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <algorithm>
#include <QFileDialog>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>

#include "ui/AnalysisController.h"
#include "ui/ClassNames.h"
#include "ui/ConfusionMatrixPlot.h"
#include "ui/DialogFolders.h"
#include "ui/FlowLayout.h"
#include "ui/GalleryDelegate.h"
#include "ui/GalleryModel.h"
#include "ui/PlotExport.h"
#include "ui/RunColors.h"
#include "ui/SaveFile.h"
#include "ui/ShrinkableComboBox.h"

namespace ensemble::ui {
namespace {

constexpr int kContactSheetColumns = 10;
constexpr int kContactSheetTiles = 100;

/// Which images an order keeps, for the caption ("78 of 212 images …, where the members
/// disagree"); empty for the order that keeps them all.
QString whatTheOrderKeeps(GalleryOrder order) {
  switch (order) {
    case GalleryOrder::Disagreement: return MistakesView::tr("where the members disagree");
    case GalleryOrder::Entropy: return {};
    case GalleryOrder::EnsembleRightMostMembersWrong: return MistakesView::tr("where the ensemble is right and most members wrong");
    case GalleryOrder::EnsembleWrongMostMembersRight: return MistakesView::tr("where the ensemble is wrong and most members right");
  }
  return {};
}

int64_t imagesInCell(const std::vector<ImageVerdict>& verdicts, const ConfusionCell& cell) {
  return std::count_if(verdicts.begin(), verdicts.end(), [&](const ImageVerdict& verdict) {
    return verdict.label == cell.label && verdict.ensembleVote == cell.predicted;
  });
}

}  // namespace

MistakesView::MistakesView(AnalysisController& analysis, QWidget* parent)
    : QWidget(parent),
      m_analysis(analysis),
      m_compute(new QPushButton(tr("Predict the test set"))),
      m_order(new ShrinkableComboBox(16)),
      m_caption(new QLabel),
      m_showAll(new QPushButton(tr("Whole test set"))),
      m_confusions{new ConfusionMatrixPlot, new ConfusionMatrixPlot},
      m_gallery(new GalleryModel(this)),
      m_delegate(new GalleryDelegate(*m_gallery, this)),
      m_view(new QListView) {
  m_compute->setToolTip(tr("Every model's predictions on the selected run's test set, in the background"));
  m_order->addItem(tr("Members disagree (most first)"), int(GalleryOrder::Disagreement));
  m_order->addItem(tr("Ensemble entropy (most uncertain first)"), int(GalleryOrder::Entropy));
  m_order->addItem(tr("Ensemble right, most members wrong"), int(GalleryOrder::EnsembleRightMostMembersWrong));
  m_order->addItem(tr("Ensemble wrong, most members right"), int(GalleryOrder::EnsembleWrongMostMembersRight));
  m_showAll->setToolTip(tr("Leave the confusion-matrix cell and show the whole test set again"));
  m_showAll->hide();
  m_caption->setWordWrap(true);  // a long caption takes two lines rather than widening the window
  m_view->setObjectName("gallery");
  m_view->setModel(m_gallery);
  m_view->setItemDelegate(m_delegate);
  m_view->setViewMode(QListView::IconMode);
  m_view->setMovement(QListView::Static);
  m_view->setResizeMode(QListView::Adjust);
  m_view->setUniformItemSizes(true);  // no per-row measuring: 10,000 tiles lay out in a few ms
  m_view->setSpacing(2);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);

  connect(m_compute, &QPushButton::clicked, this, &MistakesView::compute);
  connect(&m_analysis, &AnalysisController::inspectionReady, this, &MistakesView::showInspection);
  connect(m_order, &QComboBox::currentIndexChanged, this, [this] {
    m_gallery->setOrder(GalleryOrder(m_order->currentData().toInt()));
    updateCaption();
  });
  for (int run = 0; run < int(m_confusions.size()); ++run) {
    connect(m_confusions[run], &ConfusionMatrixPlot::cellClicked, this,
            [this, run](const ConfusionCell& cell) { showCell(cell, run); });
  }
  connect(m_showAll, &QPushButton::clicked, this, [this] {
    m_gallery->setCell(std::nullopt);
    for (ConfusionMatrixPlot* confusion : m_confusions) confusion->highlight(std::nullopt);
    updateCaption();
  });
  m_sheet = new QPushButton(tr("Contact sheet…"));
  connect(m_sheet, &QPushButton::clicked, this, [this] {
    const QString path = dialogs::saveFileName(this, tr("Save contact sheet"), "gallery.png", tr("PNG image (*.png)"));
    if (!path.isEmpty()) emit exported(saveContactSheet(path), path);
  });

  // On as many lines as the page's width needs (FlowLayout.h), the caption last: it takes
  // the rest of the last line.
  auto* controls = new FlowLayout;
  controls->addWidget(m_compute);
  controls->addWidget(sideBySide({new QLabel(tr("Order:")), m_order}));
  controls->addWidget(m_showAll);
  controls->addWidget(m_sheet);
  // Both runs' matrices where two are compared (only the first had been saved).
  controls->addWidget(makePlotsExportButton([this] { return shownConfusionPlots(); }, "confusion-matrix", this,
                                            [this](const QString& error, const QString& path) { emit exported(error, path); }));
  controls->addWidget(m_caption, 1);
  auto* splitter = new QSplitter;
  splitter->addWidget(m_confusions[0]);
  splitter->addWidget(m_confusions[1]);
  splitter->addWidget(m_view);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 2);
  splitter->setStretchFactor(2, 3);
  m_confusions[1]->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);
  updateCaption();
}

void MistakesView::setRuns(const RunChoices& runs) {
  m_runs = runs.mid(0, kComparedRuns);
  // What was computed for runs no longer selected goes: it holds their test images.
  for (auto it = m_inspections.begin(); it != m_inspections.end();) {
    const bool selected = std::any_of(m_runs.begin(), m_runs.end(), [&](const RunChoice& run) { return run.directory == it.key(); });
    it = selected ? std::next(it) : m_inspections.erase(it);
  }
  if (m_galleryRun >= m_runs.size()) m_galleryRun = 0;
  refresh();
}

void MistakesView::compute() {
  if (m_runs.isEmpty()) {
    m_caption->setText(tr("Select a run in the Runs tab first."));
    return;
  }
  QStringList directories;
  for (const RunChoice& run : m_runs) directories << run.directory;
  m_analysis.inspect(directories);
}

void MistakesView::showInspection(const std::shared_ptr<const Inspection>& inspection) {
  // A run no longer selected (the selection moved while it was predicted).
  if (std::none_of(m_runs.begin(), m_runs.end(), [&](const RunChoice& run) { return run.directory == inspection->runDirectory; })) return;
  m_inspections.insert(inspection->runDirectory, inspection);
  refresh();
  // One model disagrees with nobody, and members that agree on every image leave the
  // disagreement order empty (short runs often do): the gallery shows the most uncertain.
  if (m_gallery->inspection() == inspection.get() && m_gallery->order() == GalleryOrder::Disagreement &&
      (inspection->predictions.members.size() < 2 || m_gallery->rowCount() == 0)) {
    m_order->setCurrentIndex(m_order->findData(int(GalleryOrder::Entropy)));
  }
}

void MistakesView::refresh() {
  const bool comparing = m_runs.size() > 1;
  for (int run = 0; run < int(m_confusions.size()); ++run) {
    ConfusionMatrixPlot* confusion = m_confusions[std::size_t(run)];
    confusion->setVisible(run == 0 || comparing);
    const auto found = run < m_runs.size() ? m_inspections.constFind(m_runs[run].directory) : m_inspections.constEnd();
    if (found == m_inspections.constEnd()) {
      if (confusion->inspection()) confusion->clear();
    } else if (confusion->inspection() != found->get()) {
      confusion->showInspection(*found);
    }
    // Its CSV rows name the run (the two matrices' rows had been alike).
    confusion->plot()->setProperty(kExportPanelProperty, run < m_runs.size() ? QVariant(m_runs[run].label) : QVariant());
    const bool single = found != m_inspections.constEnd() && (*found)->predictions.members.size() < 2;
    confusion->setTitle(comparing ? m_runs[run].label
                        : single  ? tr("Confusion matrix of the model's predictions")
                                  : tr("Confusion matrix of the ensemble's vote"),
                        comparing ? runColor(run) : QColor(Qt::black));
  }
  const std::shared_ptr<const Inspection> galleryInspection =
      m_galleryRun < m_runs.size() ? m_inspections.value(m_runs[m_galleryRun].directory) : nullptr;
  if (m_gallery->inspection() != galleryInspection.get()) m_gallery->setInspection(galleryInspection);
  updateCaption();
}

void MistakesView::showCell(const ConfusionCell& cell, int run) {
  if (run < 0 || run >= m_runs.size()) return;
  m_galleryRun = run;
  refresh();
  // The order the user chose stays (it had been switched to the entropy, unasked): an order
  // that keeps only some images keeps them in the cell too, and the caption says how many
  // of the cell's images that is.
  m_gallery->setCell(cell);
  for (int other = 0; other < int(m_confusions.size()); ++other) {
    m_confusions[std::size_t(other)]->highlight(other == run ? std::optional<ConfusionCell>(cell) : std::nullopt);
  }
  updateCaption();
}

QList<QCustomPlot*> MistakesView::shownConfusionPlots() const {
  QList<QCustomPlot*> plots;
  for (int run = 0; run < int(m_confusions.size()) && run < std::max<int>(1, m_runs.size()); ++run) {
    plots << m_confusions[std::size_t(run)]->plot();
  }
  return plots;
}

void MistakesView::updateCaption() {
  const Inspection* inspection = m_gallery->inspection();
  m_showAll->setVisible(m_gallery->cell().has_value());
  // Offered only with images to save (it had asked for a file name, then said the gallery
  // was empty).
  const bool hasImages = m_gallery->rowCount() > 0;
  m_sheet->setEnabled(hasImages);
  m_sheet->setToolTip(hasImages ? tr("Save the first %1 images in this order as one PNG").arg(kContactSheetTiles)
                      : inspection ? tr("No image in this order: pick another order, or Show all")
                                   : tr("Predict the test set first: the contact sheet saves the gallery's images"));
  if (!inspection) {
    m_caption->setText(tr("Predict the selected run's test set to see its confusion matrix and gallery."));
    return;
  }
  const QString run = m_galleryRun < m_runs.size() ? m_runs[m_galleryRun].label : QString();
  const QString kept = whatTheOrderKeeps(m_gallery->order());
  const int shown = m_gallery->rowCount();
  if (const auto& cell = m_gallery->cell()) {
    const QString where = (inspection->predictions.members.size() > 1 ? tr("true %1 called %2 by the ensemble")
                                                                       : tr("true %1 called %2 by the model"))
                              .arg(className(inspection->dataset, cell->label), className(inspection->dataset, cell->predicted));
    const int64_t inCell = imagesInCell(inspection->verdicts, *cell);
    m_caption->setText(kept.isEmpty() ? tr("%1: %2 images %3").arg(run).arg(shown).arg(where)
                                      : tr("%1: %2 of %3 images %4, %5").arg(run).arg(shown).arg(inCell).arg(where, kept));
    return;
  }
  const auto total = qsizetype(inspection->verdicts.size());
  m_caption->setText(kept.isEmpty() ? tr("%1: %2 images of %3 test images").arg(run).arg(shown).arg(total)
                                    : tr("%1: %2 of %3 test images, %4").arg(run).arg(shown).arg(total).arg(kept));
}

QString MistakesView::saveContactSheet(const QString& path) const {
  if (m_gallery->rowCount() == 0) return tr("The gallery is empty: predict the test set, or pick another order.");
  const QImage sheet = m_delegate->contactSheet(kContactSheetColumns, kContactSheetTiles);
  return savePng(path, sheet);
}

}  // namespace ensemble::ui
