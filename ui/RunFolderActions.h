// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the run list's menu does to run folders on disk: rename and delete (after asking),
// never to the run that is training. Resume and evaluate go through RunController.
#include <QObject>
#include <QVector>

#include <functional>

class QWidget;

namespace ensemble::ui {

class RunsModel;

class RunFolderActions final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunFolderActions)

 public:
  /// Dialogs open over `window`.
  RunFolderActions(QWidget* window, RunsModel& runs);

  /// Asks for a new name and renames the folder of `row`.
  void rename(int row);
  /// Asks, then deletes the folders of `rows` with their checkpoints.
  void remove(const QVector<int>& rows);

 signals:
  /// Rows were removed or renamed: what shows them should refresh.
  void runsChanged();
  void failed(const QString& title, const QString& message);

 private:
  QWidget* m_window;
  RunsModel& m_runs;
};

}  // namespace ensemble::ui
