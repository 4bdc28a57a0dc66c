// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A reliability diagram (Guo et al. 2017): accuracy against confidence in 15 bins, for
// the ensemble and, on request, each member. A calibrated model lies on the diagonal; the
// shaded bars show the gap to it (above the bar: overconfident). The legend gives each
// model's ECE, the count-weighted mean of those gaps. Fed an EvaluationResult, so it
// follows a training run epoch by epoch at no extra cost.
#include <QWidget>
#include <memory>

class QCheckBox;
class QCustomPlot;
class QCPItemText;

namespace ensemble {
struct EvaluationResult;
}

namespace ensemble::ui {

class ReliabilityDiagram final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ReliabilityDiagram)

 public:
  explicit ReliabilityDiagram(QWidget* parent = nullptr);
  ~ReliabilityDiagram() override;

  /// `result` is the evaluation of the run `runLabel` names; the legend says whose it is
  /// (also in an exported figure).
  void showResult(const EvaluationResult& result, const QString& runLabel);
  /// No run to show: an empty diagram that says `why` (and what to do) in its middle; no
  /// reason given, that no run is selected.
  void clear(const QString& why = {});
  /// What the empty diagram says ("" while it shows a run).
  QString emptyHint() const;
  /// A second selected run, drawn over the first as a line of its accuracy per bin (its
  /// ECE in the legend); none: the first run alone.
  void setComparison(const EvaluationResult* result, const QString& runLabel);

  QCustomPlot* plot() const { return m_plot; }
  QCheckBox* membersBox() const { return m_members; }

 signals:
  void exported(const QString& error, const QString& path);

 private:
  static QString noRunReason();
  void redraw();

  QCustomPlot* m_plot;
  QCPItemText* m_hint;
  QString m_emptyReason;
  QCheckBox* m_members;
  std::unique_ptr<EvaluationResult> m_result;
  QString m_runLabel;
  std::unique_ptr<EvaluationResult> m_comparison;
  QString m_comparisonLabel;
};

}  // namespace ensemble::ui
