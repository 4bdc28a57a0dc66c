// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunFolderActions.h"

#include <QDir>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>

#include "ui/RunsModel.h"

namespace ensemble::ui {

RunFolderActions::RunFolderActions(QWidget* window, RunsModel& runs) : QObject(window), m_window(window), m_runs(runs) {}

void RunFolderActions::rename(int row) {
  RunRecord& record = m_runs.record(row);
  if (record.training) return emit failed(tr("Rename"), tr("Stop the run before renaming it."));
  bool ok = false;
  const QString name =
      QInputDialog::getText(m_window, tr("Rename run"), tr("New name:"), QLineEdit::Normal, record.name(), &ok).trimmed();
  if (!ok || name.isEmpty() || name == record.name()) return;
  if (name.contains('/')) return emit failed(tr("Rename"), tr("A run name cannot contain '/'."));
  const QString target = QFileInfo(record.directory).absolutePath() + "/" + name;
  if (QFileInfo::exists(target) || !QDir().rename(record.directory, target)) {
    return emit failed(tr("Rename"), tr("Could not rename to %1 (does it exist already?)").arg(name));
  }
  m_runs.setDirectory(row, target);
  emit runsChanged();
}

void RunFolderActions::remove(const QVector<int>& rows) {
  for (const int row : rows) {
    if (m_runs.record(row).training) return emit failed(tr("Delete"), tr("Stop the run before deleting it."));
  }
  if (QMessageBox::question(m_window, tr("Delete runs"),
                            tr("Delete %1 run folder(s) and their checkpoints from disk?").arg(rows.size())) !=
      QMessageBox::Yes) {
    return;
  }
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {  // from the bottom: rows above keep their index
    QDir(m_runs.record(*it).directory).removeRecursively();
    m_runs.remove(*it);
  }
  emit runsChanged();
}

}  // namespace ensemble::ui
