// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Ovadia et al.'s figure: accuracy and ECE of up to two runs (say a single model and an
// ensemble) as the test set shifts further from the training data, one kind of shift at a
// time. The levels are evaluated on request in the analysis thread; the curves stay for
// as long as the window is open, so switching kinds or runs redraws without recomputing.
#include <QMap>
#include <QWidget>

#include <string>

#include "ui/AnalysisResults.h"
#include "ui/RunChoice.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ensemble::ui {

class AnalysisController;

class ShiftView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ShiftView)

 public:
  explicit ShiftView(AnalysisController& analysis, QWidget* parent = nullptr);

  /// The selected runs; the first two are computed and drawn.
  void setRuns(const RunChoices& runs);
  /// Evaluates the chosen kind's levels for the runs shown.
  void compute();

  QComboBox* kindBox() const { return m_kind; }
  QLineEdit* levelsEdit() const { return m_levels; }
  QPushButton* computeButton() const { return m_compute; }
  QCustomPlot* plot() const { return m_plot; }

 signals:
  void exported(const QString& error, const QString& path);

 private:
  /// "rotate:0,15,30": the kind and the levels field, as parseShifts reads them.
  std::string shiftSpec() const;
  /// Marks the levels field and shows why when it does not parse; true when it does.
  bool checkLevels();
  void showCurve(const ShiftCurve& curve);
  void redraw();
  ShiftKind kind() const;

  AnalysisController& m_analysis;
  QComboBox* m_kind;
  QLineEdit* m_levels;
  QPushButton* m_compute;
  QLabel* m_message;
  QCustomPlot* m_plot;
  RunChoices m_runs;
  QMap<QString, ShiftCurve> m_curves;  ///< by run folder + kind
};

}  // namespace ensemble::ui
