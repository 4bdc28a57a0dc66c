// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the members disagree and the ensemble errs: its confusion matrix beside a gallery
// of test images in a chosen order. Clicking a matrix cell shows that cell's images.
// Computed on request (every model's predictions on the test set, in the analysis thread).
// With two runs selected, their matrices stand side by side, each named; the gallery
// shows the run whose matrix was clicked last (the first, until then).
#include <QList>
#include <QMap>
#include <QWidget>
#include <array>
#include <memory>

#include "ui/AnalysisResults.h"
#include "ui/RunChoice.h"

class QComboBox;
class QCustomPlot;
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

  /// The runs inspected are the first two selected.
  void setRuns(const RunChoices& runs);
  void compute();
  void showInspection(const std::shared_ptr<const Inspection>& inspection);
  /// Shows the images of one cell of run `run`'s confusion matrix, most uncertain first.
  void showCell(const ConfusionCell& cell, int run = 0);
  /// Saves the first 100 tiles in the gallery's order as a PNG; returns an error or "".
  QString saveContactSheet(const QString& path) const;

  QPushButton* computeButton() const { return m_compute; }
  QPushButton* contactSheetButton() const { return m_sheet; }
  QComboBox* orderBox() const { return m_order; }
  /// What the gallery shows: the run, how many images, of how many, and which.
  QLabel* caption() const { return m_caption; }
  GalleryModel* gallery() const { return m_gallery; }
  QListView* galleryView() const { return m_view; }
  /// The matrix of the `run`-th selected run (0 or 1).
  ConfusionMatrixPlot* confusion(int run = 0) const { return m_confusions[std::size_t(run)]; }
  /// The matrices shown, one per selected run, left to right: what their Export… saves.
  QList<QCustomPlot*> shownConfusionPlots() const;
  /// Which of the selected runs the gallery shows.
  int galleryRun() const { return m_galleryRun; }

 signals:
  void exported(const QString& error, const QString& path);

 private:
  void updateCaption();
  /// Shows each selected run's inspection, where computed, and the gallery's run's images.
  void refresh();

  AnalysisController& m_analysis;
  QPushButton* m_compute;
  QComboBox* m_order;
  QLabel* m_caption;
  QPushButton* m_showAll;
  QPushButton* m_sheet;  ///< enabled while the gallery has images
  std::array<ConfusionMatrixPlot*, kComparedRuns> m_confusions{};
  GalleryModel* m_gallery;
  GalleryDelegate* m_delegate;
  QListView* m_view;
  RunChoices m_runs;
  QMap<QString, std::shared_ptr<const Inspection>> m_inspections;  ///< of the selected runs, by folder
  int m_galleryRun = 0;
};

}  // namespace ensemble::ui
