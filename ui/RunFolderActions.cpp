// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunFolderActions.h"

#include <QDir>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "core/io/RemoveTree.h"
#include "ui/RunsModel.h"

namespace ensemble::ui {

namespace {

/// Why `record`'s folder cannot be renamed or deleted now (`verb`: "renaming"), or empty.
QString whyBusy(const RunRecord& record, const QString& verb) {
  if (record.training) return QObject::tr("Stop the run before %1 it.").arg(verb);
  if (record.trainingElsewhere) {
    return QObject::tr("Another process (the CLI, a sweep or another window) is training %1. Stop it, or wait for it "
                       "to end, before %2 it.")
        .arg(record.name(), verb);
  }
  return {};
}

/// The runs a deletion would remove, by name: "ensemble ×4 · lr 0.1 (20260101-…-ensemble-cnn)",
/// one a line, the first ten and how many more.
QString namesOf(const RunsModel& runs, const QVector<int>& rows) {
  constexpr int kNamed = 10;
  QStringList lines;
  for (int i = 0; i < rows.size() && i < kNamed; ++i) {
    const RunRecord& record = runs.record(rows[i]);
    const QString shown = record.displayName();
    lines << (shown == record.name() ? record.name() : QObject::tr("%1 (%2)").arg(shown, record.name()));
  }
  if (rows.size() > kNamed) lines << QObject::tr("and %1 more").arg(rows.size() - kNamed);
  return lines.join('\n');
}

}  // namespace

RunFolderActions::RunFolderActions(QWidget* window, RunsModel& runs) : QObject(window), m_window(window), m_runs(runs) {}

void RunFolderActions::rename(int row) {
  RunRecord& record = m_runs.record(row);
  if (const QString why = whyBusy(record, tr("renaming")); !why.isEmpty()) return emit failed(tr("Rename"), why);
  bool ok = false;
  const QString name =
      QInputDialog::getText(m_window, tr("Rename run"), tr("New name:"), QLineEdit::Normal, record.name(), &ok).trimmed();
  if (!ok || name.isEmpty() || name == record.name()) return;
  if (name.contains('/')) return emit failed(tr("Rename"), tr("A run name cannot contain '/'."));
  // The runs list leaves hidden folders out: the run had vanished from the window, for good.
  if (name.startsWith('.')) return emit failed(tr("Rename"), tr("A run name cannot start with '.': such a folder is hidden, and the runs list leaves it out."));
  const QString target = QFileInfo(record.directory).absolutePath() + "/" + name;
  if (QFileInfo::exists(target)) return emit failed(tr("Rename"), tr("Something named %1 exists already in the runs folder.").arg(name));
  if (std::rename(QFile::encodeName(record.directory).constData(), QFile::encodeName(target).constData()) != 0) {
    // The system's reason (a name too long, a read-only disk): it had been guessed as "does it exist already?".
    return emit failed(tr("Rename"), tr("Could not rename %1: %2.").arg(record.name(), QString::fromLocal8Bit(std::strerror(errno))));
  }
  m_runs.setDirectory(row, target);
  emit runsChanged();
}

void RunFolderActions::remove(const QVector<int>& rows) {
  for (const int row : rows) {
    if (const QString why = whyBusy(m_runs.record(row), tr("deleting")); !why.isEmpty()) return emit failed(tr("Delete"), why);
  }
  // Named, so that a right-click on the wrong row shows before anything is lost.
  const QString question = rows.size() == 1
                               ? tr("Delete this run's folder, with its checkpoints, from disk?\n\n%1")
                               : tr("Delete these %n runs' folders, with their checkpoints, from disk?\n\n%1", nullptr,
                                    int(rows.size()));
  // No is the default: a stray Enter keeps the runs.
  if (QMessageBox::question(m_window, rows.size() == 1 ? tr("Delete run") : tr("Delete runs"),
                            question.arg(namesOf(m_runs, rows)), QMessageBox::Yes | QMessageBox::No,
                            QMessageBox::No) != QMessageBox::Yes) {
    return;
  }
  QStringList kept;
  for (auto it = rows.rbegin(); it != rows.rend(); ++it) {  // from the bottom: rows above keep their index
    std::error_code error;
    if (removeTree(m_runs.record(*it).directory.toStdString(), error)) {
      m_runs.remove(*it);
    } else {
      // What the disk would not let go stays listed: the row had gone without a word, and the
      // run came back at the next start (a read-only disk, a share, another user's files).
      kept.prepend(tr("%1: %2").arg(m_runs.record(*it).name(), QString::fromStdString(error.message())));
    }
  }
  emit runsChanged();
  if (!kept.isEmpty()) {
    emit failed(tr("Delete"), (kept.size() == 1 ? tr("This run folder could not be deleted, and stays in the list (what "
                                                     "could be removed of it is gone):\n\n%1")
                                                : tr("These run folders could not be deleted, and stay in the list "
                                                     "(what could be removed of them is gone):\n\n%1"))
                                  .arg(kept.join('\n')));
  }
}

}  // namespace ensemble::ui
