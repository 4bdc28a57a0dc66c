// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How well a run's uncertainty flags images from another dataset: histograms of the
// ensemble's predictive entropy on its own test set and on the out-of-distribution set,
// with the AUROCs (Lakshminarayanan et al. 2017) in the legend and per member below.
// With two runs selected, each gets a panel of its own, side by side, named above it.
#include <QMap>
#include <QWidget>
#include <array>

#include "ui/AnalysisResults.h"
#include "ui/RunChoice.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QCPAxisRect;
class QCPLegend;
class QCPTextElement;
class QPushButton;

namespace ensemble::ui {

class AnalysisController;

class OodView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(OodView)

 public:
  explicit OodView(AnalysisController& analysis, QWidget* parent = nullptr);
  ~OodView() override;

  /// The runs scored are the first two selected; scores of other runs are not shown.
  void setRuns(const RunChoices& runs);
  /// Adds a dataset folder to the choices and picks it; refuses (and returns why) a folder
  /// without MNIST-format files or of another image size than the selected runs'.
  QString addDatasetFolder(const QString& folder);
  /// Picks `set` (a set made from the run, a dataset name, or a folder, as the CLI's --ood
  /// takes it); returns why it cannot be scored, empty when it can.
  QString chooseSet(const QString& set);
  void compute();

  QComboBox* datasetBox() const { return m_dataset; }
  QPushButton* computeButton() const { return m_compute; }
  /// What is wrong with the chosen set, in this page's words; empty when it can be scored.
  QString problemWithChosenSet() const;
  QCustomPlot* plot() const { return m_plot; }
  QLabel* memberScores() const { return m_members; }
  /// One line on the chosen set.
  QLabel* description() const { return m_description; }

 signals:
  void exported(const QString& error, const QString& path);
  /// "Folder…" chose a folder addDatasetFolder refused.
  void folderRefused(const QString& message);

 private:
  void showScores(const OutOfDistribution& scores);
  /// Draws the scores of the chosen set for the runs shown, one panel per scored run.
  void redraw();
  /// One panel per scored run: the second column is in the plot's layout only when drawn.
  void layOutPanels(int count);
  /// The first panel's legend under its axes while it has entries (LegendRow.h).
  void placeFirstLegend();
  void describeChosenSet();
  QString chosenSet() const;

  AnalysisController& m_analysis;
  QComboBox* m_dataset;
  QPushButton* m_compute;
  QLabel* m_description;
  QLabel* m_members;
  QCustomPlot* m_plot;
  std::array<QCPTextElement*, kComparedRuns> m_titles{};
  std::array<QCPAxisRect*, kComparedRuns> m_panels{};
  std::array<QCPLegend*, kComparedRuns> m_legends{};
  RunChoices m_runs;
  QMap<QString, OodResult> m_scores;  ///< by run folder + set: kept while the window is open
};

}  // namespace ensemble::ui
