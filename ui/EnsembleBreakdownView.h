// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The ensemble's breakdown for one evaluation: each member's test accuracy, NLL, Brier and
// ECE, their mean, the ensemble's (bold), and the accuracy of an ensemble of k members for
// k = 1..N (the mean over k-member subsets, in a band from the worst to the best). Fed an
// EvaluationResult (a live epoch's, a past run's summary, an evaluation). With a second
// selected run, both runs' rows are listed under their names and both curves are drawn.
#include <QWidget>
#include <optional>

#include "core/metrics/EvaluationResult.h"

class QCustomPlot;
class QLabel;
class QSplitter;
class QTableWidget;

namespace ensemble::ui {

class EnsembleBreakdownView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(EnsembleBreakdownView)

 public:
  explicit EnsembleBreakdownView(QWidget* parent = nullptr);

  /// `result` is the evaluation of the run `runLabel` names; the view says whose it is.
  void showResult(const EvaluationResult& result, const QString& runLabel);
  /// The second selected run's evaluation, listed and drawn after the first's; null: none.
  void showComparison(const EvaluationResult* result, const QString& runLabel);
  /// Selected runs beyond the two shown: the caption says they are left out (the tab
  /// compares two).
  void setUnshownRuns(int count);
  /// Empties the table and the plot and says `why` in their place.
  void clear(const QString& why);
  QString caption() const;

  QTableWidget* memberTable() const { return m_table; }
  QCustomPlot* sizePlot() const { return m_sizePlot; }

 private:
  /// One run as the view shows it.
  struct Shown {
    EvaluationResult result;
    QString label;
  };

  void redraw();
  /// The table as wide as its scores need whole, unless someone has dragged the splitter.
  void giveTheTableItsWidth();
  /// Before each replot: the axis label broken and the legend laid out to the plot's width,
  /// the legend left out where a run's name does not fit.
  void fitPlotToItsWidth();
  void addRows(const Shown& run, bool named, int index);
  void addSizeCurve(const EnsembleSizeCurve& curve, const QString& name, int index);
  /// The size plot's x axis, said whole.
  static QString sizeAxisLabel();
  /// Four decimals; empty for a score the run did not record (NaN).
  static QString number(double value);

  QLabel* m_caption;
  QTableWidget* m_table;
  QCustomPlot* m_sizePlot;
  QSplitter* m_splitter;
  bool m_tableWidthChosen = false;  // the splitter dragged: the width stays where it was put
  std::optional<Shown> m_first;
  std::optional<Shown> m_second;
  int m_unshown = 0;
};

}  // namespace ensemble::ui
