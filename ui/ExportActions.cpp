// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ExportActions.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
#include <QSettings>
#include <algorithm>

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
  offer(m_plot, {});
  // Metrics and checkpoints of every selected run that has them (they had taken the first
  // selected run alone, said only in a tooltip that menus do not show).
  const auto runsWithout = [&](const QString& part) {
    QStringList without;
    for (const int row : selectedRows) {
      if (!QFileInfo::exists(m_runs.record(row).directory + "/" + part)) without << m_runs.record(row).name();
    }
    return without;
  };
  const int count = int(selectedRows.size());
  const QStringList noMetrics = runsWithout("metrics.csv"), noCheckpoint = runsWithout("checkpoints");
  if (count == 1) {
    m_metrics->setText(tr("Export &metrics…"));
    m_checkpoint->setText(tr("Export &checkpoint…"));
    offer(m_metrics, noMetrics.isEmpty() ? QString()
                                         : tr("%1 has no metrics.csv: it logged no step yet, or the file was removed")
                                               .arg(noMetrics.front()));
    offer(m_checkpoint, noCheckpoint.isEmpty() ? QString() : tr("%1 has no checkpoint yet").arg(noCheckpoint.front()));
  } else {
    const auto runs = [](qsizetype n) { return n == 1 ? tr("1 run") : tr("%1 runs").arg(n); };
    m_metrics->setText(tr("Export &metrics of %1…").arg(runs(count - noMetrics.size())));
    m_checkpoint->setText(tr("Export &checkpoints of %1…").arg(runs(count - noCheckpoint.size())));
    offer(m_metrics, noMetrics.size() == count ? tr("None of the selected runs has a metrics.csv yet") : QString());
    offer(m_checkpoint, noCheckpoint.size() == count ? tr("None of the selected runs has a checkpoint yet") : QString());
    if (m_metrics->isEnabled() && !noMetrics.isEmpty()) {
      m_metrics->setToolTip(tr("A CSV per run into one folder; %1 logged no step yet").arg(noMetrics.join(", ")));
    }
    if (m_checkpoint->isEnabled() && !noCheckpoint.isEmpty()) {
      m_checkpoint->setToolTip(tr("Each run's latest checkpoint into one folder; %1 has none yet").arg(noCheckpoint.join(", ")));
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

QString ExportActions::metricsPathIn(const QString& folder, const QString& directory) {
  return QDir(folder).filePath(QFileInfo(directory).fileName() + ".csv");
}

QString ExportActions::exportMetricsInto(const QStringList& directories, const QString& folder) {
  QStringList failures;
  for (const QString& run : directories) {
    const QString error = exportMetrics(run, metricsPathIn(folder, run));
    if (!error.isEmpty()) failures << tr("%1: %2").arg(QFileInfo(run).fileName(), error);
  }
  return failures.join('\n');
}

QString ExportActions::exportCheckpointsInto(const QStringList& directories, const QString& folder) {
  QStringList failures;
  for (const QString& run : directories) {
    const QString error = exportCheckpoint(run, folder);
    if (!error.isEmpty()) failures << tr("%1: %2").arg(QFileInfo(run).fileName(), error);
  }
  return failures.join('\n');
}

QString ExportActions::curvesPathFor(const QString& path) {
  const QFileInfo table(path);
  return table.dir().filePath(table.completeBaseName() + "-curves.csv");
}

QString ExportActions::exportRuns(const QStringList& directories, const QString& path) {
  std::vector<std::string> runs;
  for (const QString& directory : directories) runs.push_back(directory.toStdString());
  try {
    // A run that cannot be read is left out and named, the others written.
    std::vector<RunLeftOut> leftOut;
    writeRunComparison(runs, path.toStdString(), &leftOut);
    writeRunCurves(runs, curvesPathFor(path).toStdString(), &leftOut);
    // Each run named once, the table's reason and the curves' under it where they differ.
    std::vector<std::pair<std::string, QStringList>> reasonsOfRun;  // in the order left out
    for (const RunLeftOut& run : leftOut) {
      auto it = std::find_if(reasonsOfRun.begin(), reasonsOfRun.end(), [&](const auto& r) { return r.first == run.run; });
      if (it == reasonsOfRun.end()) it = reasonsOfRun.insert(reasonsOfRun.end(), {run.run, {}});
      if (const QString why = inLabels(run.why); !it->second.contains(why)) it->second << why;
    }
    QStringList failures;
    for (const auto& [run, reasons] : reasonsOfRun) {
      failures << tr("%1: %2").arg(QFileInfo(QString::fromStdString(run)).fileName(), reasons.join(tr("\n  and ")));
    }
    if (failures.isEmpty()) return {};
    return tr("%1 and %2 hold the other runs; left out:\n%3").arg(path, curvesPathFor(path), failures.join('\n'));
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
  const QStringList runs = selectedRunsWith("metrics.csv", tr("Export metrics"));
  if (runs.size() == 1) {
    const QString path = dialogs::saveFileName(m_window, tr("Export metrics"), QFileInfo(runs.front()).fileName() + ".csv",
                                               tr("CSV (*.csv);;JSON (*.json)"));
    if (!path.isEmpty()) report(exportMetrics(runs.front(), path), tr("Saved %1").arg(path));
    return;
  }
  if (runs.isEmpty()) return;
  const QString folder = dialogs::existingDirectory(m_window, tr("Save the metrics of %1 runs into").arg(runs.size()),
                                                    dialogs::Place::Exports);
  if (folder.isEmpty()) return;
  QStringList existing;  // asked once for all, as the save dialog asks for one file
  for (const QString& run : runs) {
    if (QFileInfo::exists(metricsPathIn(folder, run))) existing << QFileInfo(metricsPathIn(folder, run)).fileName();
  }
  const QString question = existing.size() == 1
                               ? tr("%1 exists already in %2. Replace it?").arg(existing.front(), folder)
                               : tr("%1 of these files exist already in %2 (%3). Replace them?")
                                     .arg(existing.size())
                                     .arg(folder, existing.join(", "));
  if (!existing.isEmpty() && QMessageBox::question(m_window, tr("Export metrics"), question, QMessageBox::Yes | QMessageBox::No,
                                                   QMessageBox::No) != QMessageBox::Yes) {
    return;
  }
  report(exportMetricsInto(runs, folder), tr("Saved the metrics of %1 runs into %2").arg(runs.size()).arg(folder));
}

void ExportActions::exportCheckpointInteractive() {
  const QStringList runs = selectedRunsWith("checkpoints", tr("Export checkpoint"));
  if (runs.isEmpty()) return;
  const QString folder = dialogs::existingDirectory(
      m_window, runs.size() == 1 ? tr("Save the checkpoint into") : tr("Save the checkpoints of %1 runs into").arg(runs.size()),
      dialogs::Place::Exports);
  if (folder.isEmpty()) return;
  if (runs.size() == 1) return report(exportCheckpoint(runs.front(), folder), tr("Checkpoint saved into %1").arg(folder));
  report(exportCheckpointsInto(runs, folder), tr("Checkpoints of %1 runs saved into %2").arg(runs.size()).arg(folder));
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

QStringList ExportActions::selectedRunsWith(const QString& part, const QString& title) {
  const QVector<int> rows = m_list.selectedRows();
  if (rows.isEmpty()) {
    emit failed(title, tr("Select a run in the Runs list first."));
    return {};
  }
  QStringList runs;
  for (const int row : rows) {
    // One run is exported or refused with the engine's reason; of several, those that have it.
    if (rows.size() == 1 || QFileInfo::exists(m_runs.record(row).directory + "/" + part)) runs << m_runs.record(row).directory;
  }
  return runs;
}

void ExportActions::report(const QString& error, const QString& status) {
  if (!error.isEmpty()) emit failed(tr("Export failed"), error);
  else emit saved(status);
}

}  // namespace ensemble::ui
