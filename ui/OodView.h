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
class QCPTextElement;
class QPushButton;

namespace ensemble::ui {

class AnalysisController;

class OodView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(OodView)

 public:
  explicit OodView(AnalysisController& analysis, QWidget* parent = nullptr);

  /// The run scored is the first selected; scores shown for another run are cleared.
  void setRuns(const RunChoices& runs);
  /// Adds a dataset folder to the choices and picks it.
  void addDatasetFolder(const QString& folder);
  void compute();

  QComboBox* datasetBox() const { return m_dataset; }
  QPushButton* computeButton() const { return m_compute; }
  QCustomPlot* plot() const { return m_plot; }
  QLabel* memberScores() const { return m_members; }
  /// One line on the chosen set.
  QLabel* description() const { return m_description; }

 signals:
  void exported(const QString& error, const QString& path);

 private:
  void showScores(const OutOfDistribution& scores);
  void clearScores(const QString& why);
  void describeChosenSet();

  AnalysisController& m_analysis;
  QComboBox* m_dataset;
  QPushButton* m_compute;
  QLabel* m_description;
  QLabel* m_members;
  QCustomPlot* m_plot;
  QCPTextElement* m_title;
  RunChoices m_runs;
  QString m_shownDirectory;  ///< the run whose scores the plot shows
};

}  // namespace ensemble::ui
