// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ExportActions.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QSettings>

#include "core/runs/RunExport.h"
#include "core/runs/RunComparison.h"
#include "ui/DialogFolders.h"
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
      m_checkpoint(new QAction(tr("Export &checkpoint…"), this)),
      m_runsAction(new QAction(tr("Export selected &runs (table and curves)…"), this)),
      m_captionAction(new QAction(tr("Caption exported plots with the runs' setup"), this)) {
  m_captionAction->setCheckable(true);
  m_captionAction->setChecked(QSettings().value("export/caption", true).toBool());
  connect(m_captionAction, &QAction::toggled, this, [](bool on) { QSettings().setValue("export/caption", on); });
  connect(m_plot, &QAction::triggered, this, &ExportActions::exportPlotInteractive);
  connect(m_metrics, &QAction::triggered, this, &ExportActions::exportMetricsInteractive);
  connect(m_checkpoint, &QAction::triggered, this, &ExportActions::exportCheckpointInteractive);
  connect(m_runsAction, &QAction::triggered, this, &ExportActions::exportRunsInteractive);
}

void ExportActions::updateFor(const QVector<int>& selectedRows) {
  const auto offer = [](QAction* action, const QString& whyNot) {
    action->setEnabled(whyNot.isEmpty());
    action->setToolTip(whyNot.isEmpty() ? action->text().remove('&').remove(QChar(0x2026)) : whyNot);
  };
  const QString selectFirst = tr("Select a run in the Runs list first");
  if (selectedRows.isEmpty()) {
    for (QAction* action : {m_plot, m_metrics, m_checkpoint, m_runsAction}) offer(action, selectFirst);
    return;
  }
  const RunRecord& first = m_runs.record(selectedRows.front());
  const QString name = first.name();
  offer(m_plot, {});
  offer(m_metrics, QFileInfo(first.directory + "/metrics.csv").isFile()
                       ? QString()
                       : tr("%1 has no metrics.csv: it logged no step yet, or the file was removed").arg(name));
  offer(m_checkpoint, QFileInfo(first.directory + "/checkpoints").isDir()
                          ? QString()
                          : tr("%1 has no checkpoint yet").arg(name));
  if (selectedRows.size() > 1) {  // these two take one run: say which
    for (QAction* action : {m_metrics, m_checkpoint}) {
      if (action->isEnabled()) action->setToolTip(tr("%1 of the first selected run, %2").arg(action->toolTip(), name));
    }
  }
  QString unreadable;
  for (const int row : selectedRows) {
    if (!m_runs.record(row).config) unreadable = m_runs.record(row).name();
  }
  offer(m_runsAction, unreadable.isEmpty() ? QString()
                                           : tr("%1's config.json cannot be read (its Status cell says why): "
                                                "select only readable runs").arg(unreadable));
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

QString ExportActions::curvesPathFor(const QString& path) {
  const QFileInfo table(path);
  return table.dir().filePath(table.completeBaseName() + "-curves.csv");
}

QString ExportActions::exportRuns(const QStringList& directories, const QString& path) {
  std::vector<std::string> runs;
  for (const QString& directory : directories) runs.push_back(directory.toStdString());
  try {
    writeRunComparison(runs, path.toStdString());
    writeRunCurves(runs, curvesPathFor(path).toStdString());
    return {};
  } catch (const std::exception& e) {
    return inLabels(e.what());
  }
}

void ExportActions::exportPlotInteractive() {
  MetricPlot* plot = m_plots.activePlot();
  const QString path = dialogs::saveFileName(m_window, tr("Export plot"), plot->title() + ".png", plotExportFilter());
  const QString caption = m_captionAction->isChecked() ? captionFor(*plot) : QString();
  if (!path.isEmpty()) report(plot->exportTo(path, caption), tr("Saved %1").arg(path));
}

QString ExportActions::captionFor(const MetricPlot& plot) const {
  QStringList lines;
  for (const auto& curves : plot.runs()) {
    for (int row = 0; row < m_runs.rowCount(); ++row) {
      if (m_runs.record(row).curves == curves) {
        lines << m_runs.record(row).captionLine();
        break;
      }
    }
  }
  return lines.join('\n');
}

void ExportActions::exportMetricsInteractive() {
  const QString run = selectedRun(tr("Export metrics"));
  if (run.isEmpty()) return;
  const QString path = dialogs::saveFileName(m_window, tr("Export metrics"), QFileInfo(run).fileName() + ".csv",
                                                    tr("CSV (*.csv);;JSON (*.json)"));
  if (!path.isEmpty()) report(exportMetrics(run, path), tr("Saved %1").arg(path));
}

void ExportActions::exportCheckpointInteractive() {
  const QString run = selectedRun(tr("Export checkpoint"));
  if (run.isEmpty()) return;
  const QString folder = dialogs::existingDirectory(m_window, tr("Save the checkpoint into"), dialogs::Place::Exports);
  if (!folder.isEmpty()) report(exportCheckpoint(run, folder), tr("Checkpoint saved into %1").arg(folder));
}

void ExportActions::exportRunsInteractive() {
  QStringList runs;
  for (const int row : m_list.selectedRows()) runs << m_runs.record(row).directory;
  if (runs.isEmpty()) return emit failed(tr("Export runs"), tr("Select the runs to export in the Runs list first."));
  const QString path = dialogs::saveFileName(m_window, tr("Export the selected runs"), "runs.csv", tr("CSV (*.csv)"));
  if (!path.isEmpty()) {
    report(exportRuns(runs, path), tr("Saved %1 runs to %2 and %3").arg(runs.size()).arg(path, curvesPathFor(path)));
  }
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
