// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The ensemble's breakdown for one evaluation: each member's test accuracy, NLL, Brier and
// ECE, their mean, the ensemble's (bold), and the accuracy of an ensemble of k members for
// k = 1..N (the mean over k-member subsets, in a band from the worst to the best). Fed an
// EvaluationResult (a live epoch's, a past run's summary, an evaluation).
#include <QWidget>

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace ensemble {
struct EnsembleSizeCurve;
struct EvaluationResult;
}

namespace ensemble::ui {

class EnsembleBreakdownView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(EnsembleBreakdownView)

 public:
  explicit EnsembleBreakdownView(QWidget* parent = nullptr);

  /// `result` is the evaluation of the run `runLabel` names; the view says whose it is.
  void showResult(const EvaluationResult& result, const QString& runLabel);
  /// Empties the table and the plot and says `why` in their place.
  void clear(const QString& why);
  QString caption() const;

  QTableWidget* memberTable() const { return m_table; }
  QCustomPlot* sizePlot() const { return m_sizePlot; }

 private:
  void showSizeCurve(const EnsembleSizeCurve& curve);
  /// Four decimals; empty for a score the run did not record (NaN).
  static QString number(double value);

  QLabel* m_caption;
  QTableWidget* m_table;
  QCustomPlot* m_sizePlot;
};

}  // namespace ensemble::ui
