#pragma once
// The ensemble's breakdown for one evaluation: each member's test accuracy and loss, their
// mean, the ensemble's (bold), and the accuracy of the ensemble of the first k members for
// k = 1..N. Fed an EvaluationResult (a live epoch's, a past run's summary, an evaluation).
#include <QWidget>

class QCustomPlot;
class QTableWidget;

namespace ensemble {
struct EvaluationResult;
}

namespace ensemble::ui {

class EnsembleBreakdownView final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(EnsembleBreakdownView)

 public:
  explicit EnsembleBreakdownView(QWidget* parent = nullptr);

  void showResult(const EvaluationResult& result);

  QTableWidget* memberTable() const { return m_table; }
  QCustomPlot* sizePlot() const { return m_sizePlot; }

 private:
  QTableWidget* m_table;
  QCustomPlot* m_sizePlot;
};

}  // namespace ensemble::ui
