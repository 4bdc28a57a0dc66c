#include "ui/ExportActions.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>

#include "core/io/RunExport.h"
#include "ui/EngineMessage.h"
#include "ui/MetricPlot.h"
#include "ui/PlotExport.h"
#include "ui/PlotPanel.h"
#include "ui/RunListView.h"
#include "ui/RunsModel.h"

namespace ensemble::ui {

ExportActions::ExportActions(QWidget* window, const PlotPanel& plots, const RunListView& list, const RunsModel& runs)
    : QObject(window),
      m_window(window),
      m_plots(plots),
      m_list(list),
      m_runs(runs),
      m_plot(new QAction(QIcon::fromTheme("document-save-as", QIcon(":/icons/export.svg")), tr("Export &plot…"), this)),
      m_metrics(new QAction(tr("Export &metrics…"), this)),
      m_checkpoint(new QAction(tr("Export &checkpoint…"), this)) {
  connect(m_plot, &QAction::triggered, this, &ExportActions::exportPlotInteractive);
  connect(m_metrics, &QAction::triggered, this, &ExportActions::exportMetricsInteractive);
  connect(m_checkpoint, &QAction::triggered, this, &ExportActions::exportCheckpointInteractive);
}

QString ExportActions::exportMetrics(const QString& directory, const QString& path) {
  try {
    exportRunMetrics(directory.toStdString(), path.toStdString());
    return {};
  } catch (const std::exception& e) {
    return inLabels(e.what());
  }
}

QString ExportActions::exportCheckpoint(const QString& directory, const QString& folder) {
  try {
    exportLatestCheckpoint(directory.toStdString(), folder.toStdString());
    return {};
  } catch (const std::exception& e) {
    return inLabels(e.what());
  }
}

void ExportActions::exportPlotInteractive() {
  MetricPlot* plot = m_plots.activePlot();
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Export plot"), plot->title() + ".png",
                                                    plotExportFilter());
  if (!path.isEmpty()) report(exportPlot(plot->customPlot(), path), tr("Saved %1").arg(path));
}

void ExportActions::exportMetricsInteractive() {
  const QString run = selectedRun(tr("Export metrics"));
  if (run.isEmpty()) return;
  const QString path = QFileDialog::getSaveFileName(m_window, tr("Export metrics"), QFileInfo(run).fileName() + ".csv",
                                                    tr("CSV (*.csv);;JSON (*.json)"));
  if (!path.isEmpty()) report(exportMetrics(run, path), tr("Saved %1").arg(path));
}

void ExportActions::exportCheckpointInteractive() {
  const QString run = selectedRun(tr("Export checkpoint"));
  if (run.isEmpty()) return;
  const QString folder = QFileDialog::getExistingDirectory(m_window, tr("Save the checkpoint into"));
  if (!folder.isEmpty()) report(exportCheckpoint(run, folder), tr("Checkpoint saved into %1").arg(folder));
}

QString ExportActions::selectedRun(const QString& title) {
  const int row = m_list.firstSelectedRow();
  if (row < 0) {
    emit failed(title, tr("Select a run in the Runs list first."));
    return {};
  }
  return m_runs.record(row).directory;
}

void ExportActions::report(const QString& error, const QString& status) {
  if (!error.isEmpty()) emit failed(tr("Export failed"), error);
  else emit saved(status);
}

}  // namespace ensemble::ui
