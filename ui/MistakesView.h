// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the members disagree and the ensemble errs: its confusion matrix beside a gallery
// of test images in a chosen order. Clicking a matrix cell shows that cell's images.
// Computed on request (every model's predictions on the test set, in the analysis thread).
#include <QWidget>
#include <memory>

#include "ui/AnalysisResults.h"
#include "ui/RunChoice.h"

class QComboBox;
class QLabel;
class QListView;
class QPushButton;

namespace ensemble::ui {

class AnalysisController;
class ConfusionMatrixPlot;
class GalleryDelegate;
class GalleryModel;

class MistakesView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(MistakesView)

 public:
  explicit MistakesView(AnalysisController& analysis, QWidget* parent = nullptr);

  /// The run inspected is the first selected.
  void setRuns(const RunChoices& runs);
  void compute();
  void showInspection(const std::shared_ptr<const Inspection>& inspection);
  /// Shows the images of one confusion-matrix cell, most uncertain first.
  void showCell(const ConfusionCell& cell);
  /// Saves the first 100 tiles in the gallery's order as a PNG; returns an error or "".
  QString saveContactSheet(const QString& path) const;

  QPushButton* computeButton() const { return m_compute; }
  QComboBox* orderBox() const { return m_order; }
  GalleryModel* gallery() const { return m_gallery; }
  QListView* galleryView() const { return m_view; }
  ConfusionMatrixPlot* confusion() const { return m_confusion; }

 signals:
  void exported(const QString& error, const QString& path);

 private:
  void updateCaption();

  AnalysisController& m_analysis;
  QPushButton* m_compute;
  QComboBox* m_order;
  QLabel* m_caption;
  QPushButton* m_showAll;
  ConfusionMatrixPlot* m_confusion;
  GalleryModel* m_gallery;
  GalleryDelegate* m_delegate;
  QListView* m_view;
  RunChoices m_runs;
};

}  // namespace ensemble::ui
