// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/MistakesView.h"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
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
#include "ui/GalleryDelegate.h"
#include "ui/GalleryModel.h"
#include "ui/PlotExport.h"
#include "ui/SaveFile.h"

namespace ensemble::ui {
namespace {

constexpr int kContactSheetColumns = 10;
constexpr int kContactSheetTiles = 100;

}  // namespace

MistakesView::MistakesView(AnalysisController& analysis, QWidget* parent)
    : QWidget(parent),
      m_analysis(analysis),
      m_compute(new QPushButton(tr("Predict the test set"))),
      m_order(new QComboBox),
      m_caption(new QLabel),
      m_showAll(new QPushButton(tr("Whole test set"))),
      m_confusion(new ConfusionMatrixPlot),
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
  connect(m_confusion, &ConfusionMatrixPlot::cellClicked, this, &MistakesView::showCell);
  connect(m_showAll, &QPushButton::clicked, this, [this] {
    m_gallery->setCell(std::nullopt);
    m_confusion->highlight(std::nullopt);
    updateCaption();
  });
  auto* sheet = new QPushButton(tr("Contact sheet…"));
  sheet->setToolTip(tr("Save the first %1 images in this order as one PNG").arg(kContactSheetTiles));
  connect(sheet, &QPushButton::clicked, this, [this] {
    const QString path = dialogs::saveFileName(this, tr("Save contact sheet"), "gallery.png", tr("PNG image (*.png)"));
    if (!path.isEmpty()) emit exported(saveContactSheet(path), path);
  });

  auto* controls = new QHBoxLayout;
  controls->addWidget(m_compute);
  controls->addWidget(new QLabel(tr("Order:")));
  controls->addWidget(m_order);
  controls->addWidget(m_showAll);
  controls->addWidget(m_caption, 1);
  controls->addWidget(sheet);
  controls->addWidget(makePlotExportButton(m_confusion->plot(), "confusion-matrix", this,
                                           [this](const QString& error, const QString& path) { emit exported(error, path); }));
  auto* splitter = new QSplitter;
  splitter->addWidget(m_confusion);
  splitter->addWidget(m_view);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);
  layout->addWidget(splitter, 1);
  updateCaption();
}

void MistakesView::setRuns(const RunChoices& runs) {
  m_runs = runs.mid(0, 1);
  // The matrix and gallery of a run no longer selected go: they would pass for this one's.
  const Inspection* shown = m_gallery->inspection();
  if (shown && (m_runs.isEmpty() || shown->runDirectory != m_runs.front().directory)) {
    m_gallery->setInspection(nullptr);
    m_confusion->clear();
    updateCaption();
  }
}

void MistakesView::compute() {
  if (m_runs.isEmpty()) {
    m_caption->setText(tr("Select a run in the Runs tab first."));
    return;
  }
  m_analysis.inspect(m_runs.front().directory);
}

void MistakesView::showInspection(const std::shared_ptr<const Inspection>& inspection) {
  // A run no longer selected (the selection moved while it was predicted).
  if (m_runs.isEmpty() || inspection->runDirectory != m_runs.front().directory) return;
  m_confusion->showInspection(inspection);
  m_gallery->setInspection(inspection);
  if (inspection->predictions.members.size() < 2 && m_gallery->order() == GalleryOrder::Disagreement) {
    m_order->setCurrentIndex(m_order->findData(int(GalleryOrder::Entropy)));  // one model disagrees with nobody
  }
  updateCaption();
}

void MistakesView::showCell(const ConfusionCell& cell) {
  // Every image of the cell, not only the disagreed-on ones: the most uncertain first.
  m_order->setCurrentIndex(m_order->findData(int(GalleryOrder::Entropy)));
  m_gallery->setCell(cell);
  m_confusion->highlight(cell);
  updateCaption();
}

void MistakesView::updateCaption() {
  const Inspection* inspection = m_gallery->inspection();
  m_showAll->setVisible(m_gallery->cell().has_value());
  if (!inspection) {
    m_caption->setText(tr("Predict the selected run's test set to see its confusion matrix and gallery."));
    return;
  }
  QString scope = tr("of %1 test images").arg(inspection->verdicts.size());
  if (const auto& cell = m_gallery->cell()) {
    scope = tr("true %1 called %2 by the ensemble")
                .arg(className(inspection->dataset, cell->label), className(inspection->dataset, cell->predicted));
  }
  m_caption->setText(tr("%1: %2 images %3").arg(m_runs.isEmpty() ? QString() : m_runs.front().label)
                         .arg(m_gallery->rowCount()).arg(scope));
}

QString MistakesView::saveContactSheet(const QString& path) const {
  if (m_gallery->rowCount() == 0) return tr("The gallery is empty: predict the test set, or pick another order.");
  const QImage sheet = m_delegate->contactSheet(kContactSheetColumns, kContactSheetTiles);
  return savePng(path, sheet);
}

}  // namespace ensemble::ui
