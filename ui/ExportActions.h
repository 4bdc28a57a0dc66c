// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File > Export: the plot last clicked as PNG, PDF, SVG or CSV, the selected runs' metrics
// (one run's as CSV or JSON, several runs' as a CSV each in one folder), their latest
// checkpoints, and the selected runs side by side (a comparison
// table and every curve in long format, both CSV). The formats are the engine's
// (core/runs/RunExport.h, which the CLI's `export` writes too); this asks where, and reports.
#include <QObject>

class QAction;
class QWidget;

namespace ensemble::ui {

class MetricPlot;
class PlotPanel;
class RunListView;
class RunsModel;

class ExportActions final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ExportActions)

 public:
  /// Dialogs open over `window`; the runs exported are those selected in `list`.
  ExportActions(QWidget* window, const PlotPanel& plots, const RunListView& list, const RunsModel& runs);

  QAction* plotAction() const { return m_plot; }
  QAction* metricsAction() const { return m_metrics; }
  QAction* checkpointAction() const { return m_checkpoint; }
  QAction* runsAction() const { return m_runsAction; }
  /// Checkable: exported plots carry a caption with their runs' setup (remembered).
  QAction* captionAction() const { return m_captionAction; }
  /// Enables each export for a selection it can act on (rows of the runs model): metrics
  /// need a selected run with metrics.csv, checkpoints one with a checkpoints folder, the runs
  /// table every selected run's config.json. A disabled one says why; with several runs
  /// selected, the menu says how many each exports, and which it leaves out.
  void updateFor(const QVector<int>& selectedRows);
  /// The caption for `plot`: one line per run it shows.
  QString captionFor(const MetricPlot& plot) const;

  /// Writes the metrics of the run in `directory` to `path` (.csv: metrics.csv; .json:
  /// config, summary and curves). Returns an error message, or an empty string.
  static QString exportMetrics(const QString& directory, const QString& path);
  /// Copies the latest checkpoint of the run in `directory` into `folder`.
  static QString exportCheckpoint(const QString& directory, const QString& folder);
  /// Writes each run's metrics.csv in `directories` to `folder` as RUN.csv, going on past a
  /// run that fails. Returns what failed, a line per run (empty when none did).
  static QString exportMetricsInto(const QStringList& directories, const QString& folder);
  /// Where exportMetricsInto writes the metrics of the run in `directory`.
  static QString metricsPathIn(const QString& folder, const QString& directory);
  /// Copies each run's latest checkpoint into `folder` (RUN-step-N), going on past a run
  /// that fails. Returns what failed, a line per run.
  static QString exportCheckpointsInto(const QStringList& directories, const QString& folder);
  /// Writes the comparison table of `directories` to `path` and their curves in long
  /// format beside it (NAME.csv -> NAME-curves.csv; core/runs/RunComparison.h).
  static QString exportRuns(const QStringList& directories, const QString& path);
  /// Where exportRuns writes the curves for a table at `path`.
  static QString curvesPathFor(const QString& path);

 signals:
  void saved(const QString& status);
  void failed(const QString& title, const QString& message);

 private:
  void exportPlotInteractive();
  void exportMetricsInteractive();
  void exportCheckpointInteractive();
  void exportRunsInteractive();
  /// The selected runs' folders that hold `part` (metrics.csv, checkpoints); empty (and
  /// said) when none is selected.
  QStringList selectedRunsWith(const QString& part, const QString& title);
  void report(const QString& error, const QString& status);

  QWidget* m_window;
  const PlotPanel& m_plots;
  const RunListView& m_list;
  const RunsModel& m_runs;
  QAction* m_plot;
  QAction* m_metrics;
  QAction* m_checkpoint;
  QAction* m_runsAction;
  QAction* m_captionAction;
};

}  // namespace ensemble::ui
