// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Uncertainty tab: for the selected run(s), how far the predicted probabilities can
// be trusted. Four pages: the reliability diagram (live during training), accuracy and
// ECE under dataset shift, out-of-distribution entropy, and the confusion matrix with
// the gallery. The last three are computed on request in AnalysisController's thread;
// one progress bar and one Cancel serve them all.
#include <QWidget>

#include "ui/RunChoice.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace ensemble {
struct EvaluationResult;
}

namespace ensemble::ui {

class AnalysisController;
class MistakesView;
class OodView;
class ReliabilityDiagram;
class ShiftView;

class UncertaintyView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(UncertaintyView)

 public:
  explicit UncertaintyView(QWidget* parent = nullptr);
  ~UncertaintyView() override;

  /// The runs selected in the Runs tab, first first.
  void setRuns(const RunChoices& runs);
  /// The first selected run's latest evaluation (each epoch of a live run), `runLabel`
  /// naming it.
  void showResult(const EvaluationResult& result, const QString& runLabel);
  /// The first selected run has no evaluation (yet), or no run is selected.
  void clearResult(const QString& why = {});
  /// The second selected run's evaluation, drawn beside the first's where a page compares
  /// (the reliability diagram); null: none.
  void showComparison(const EvaluationResult* result, const QString& runLabel);

  AnalysisController* analysis() const { return m_analysis; }
  ReliabilityDiagram* reliability() const { return m_reliability; }
  ShiftView* shift() const { return m_shift; }
  OodView* outOfDistribution() const { return m_ood; }
  MistakesView* mistakes() const { return m_mistakes; }
  QTabWidget* pages() const { return m_pages; }
  QPushButton* cancelButton() const { return m_cancel; }
  QProgressBar* progressBar() const { return m_progress; }
  QString statusText() const;

 signals:
  /// A plot or contact sheet was saved (`error` empty) or could not be.
  void exported(const QString& error, const QString& path);
  void failed(const QString& title, const QString& message);

 private:
  void setBusy(bool busy);

  AnalysisController* m_analysis;
  QLabel* m_runLabel;
  QLabel* m_status;
  QProgressBar* m_progress;
  QPushButton* m_cancel;
  QTabWidget* m_pages;
  ReliabilityDiagram* m_reliability;
  ShiftView* m_shift;
  OodView* m_ood;
  MistakesView* m_mistakes;
};

}  // namespace ensemble::ui
