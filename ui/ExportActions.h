#pragma once
// File > Export: the plot last clicked as PNG, PDF or SVG, the selected run's metrics as
// CSV or JSON, and its latest checkpoint. The formats are the engine's
// (core/io/RunExport.h, which the CLI's `export` writes too); this asks where, and reports.
#include <QObject>

class QAction;
class QWidget;

namespace ensemble::ui {

class PlotPanel;
class RunListView;
class RunsModel;

class ExportActions final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ExportActions)

 public:
  /// Dialogs open over `window`; the run exported is the first selected in `list`.
  ExportActions(QWidget* window, const PlotPanel& plots, const RunListView& list, const RunsModel& runs);

  QAction* plotAction() const { return m_plot; }
  QAction* metricsAction() const { return m_metrics; }
  QAction* checkpointAction() const { return m_checkpoint; }

  /// Writes the metrics of the run in `directory` to `path` (.csv: metrics.csv; .json:
  /// config, summary and curves). Returns an error message, or an empty string.
  static QString exportMetrics(const QString& directory, const QString& path);
  /// Copies the latest checkpoint of the run in `directory` into `folder`.
  static QString exportCheckpoint(const QString& directory, const QString& folder);

 signals:
  void saved(const QString& status);
  void failed(const QString& title, const QString& message);

 private:
  void exportPlotInteractive();
  void exportMetricsInteractive();
  void exportCheckpointInteractive();
  /// The selected run's folder; empty (and said) when none is selected.
  QString selectedRun(const QString& title);
  void report(const QString& error, const QString& status);

  QWidget* m_window;
  const PlotPanel& m_plots;
  const RunListView& m_list;
  const RunsModel& m_runs;
  QAction* m_plot;
  QAction* m_metrics;
  QAction* m_checkpoint;
};

}  // namespace ensemble::ui
