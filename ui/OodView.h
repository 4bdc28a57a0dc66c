// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How well a run's uncertainty flags images from another dataset: histograms of the
// ensemble's predictive entropy on its own test set and on the out-of-distribution set,
// with the AUROCs (Lakshminarayanan et al. 2017) in the legend and per member below.
#include <QWidget>

#include "ui/AnalysisResults.h"
#include "ui/RunChoice.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace ensemble::ui {

class AnalysisController;

class OodView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(OodView)

 public:
  explicit OodView(AnalysisController& analysis, QWidget* parent = nullptr);

  /// The run scored is the first selected.
  void setRuns(const RunChoices& runs);
  /// Adds a dataset folder to the choices and picks it.
  void addDatasetFolder(const QString& folder);
  void compute();

  QComboBox* datasetBox() const { return m_dataset; }
  QPushButton* computeButton() const { return m_compute; }
  QCustomPlot* plot() const { return m_plot; }
  QLabel* memberScores() const { return m_members; }

 signals:
  void exported(const QString& error, const QString& path);

 private:
  void showScores(const OutOfDistribution& scores);

  AnalysisController& m_analysis;
  QComboBox* m_dataset;
  QPushButton* m_compute;
  QLabel* m_members;
  QCustomPlot* m_plot;
  RunChoices m_runs;
};

}  // namespace ensemble::ui
