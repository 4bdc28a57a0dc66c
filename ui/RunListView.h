// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Runs tab: the table of runs and what its context menu does. Renaming and deleting
// run folders happen here (RunFolderActions asks first); resuming and evaluating need the
// training thread, so they are asked of the window.
#include <QTableView>
#include <QVector>

class QAction;

namespace ensemble::ui {

class RunFolderActions;
class RunsModel;

class RunListView final : public QTableView {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunListView)

 public:
  explicit RunListView(RunsModel& runs, QWidget* parent = nullptr);

  /// The selected rows, top to bottom.
  QVector<int> selectedRows() const;
  /// The first selected row, or -1 when nothing is selected.
  int firstSelectedRow() const;

  /// The context menu's Resume and Evaluate (the window's Run menu triggers them too).
  QAction* resumeAction() const { return m_resume; }
  QAction* evaluateAction() const { return m_evaluate; }

 signals:
  void resumeRequested(int row);
  void evaluateRequested(int row);
  /// The selection changed, or runs were renamed or removed: what shows them should refresh.
  void runsChanged();
  void failed(const QString& title, const QString& message);

 private:
  /// Adds a context-menu entry that calls `onRow` with the first selected row, or says
  /// that a run must be selected first.
  template <typename OnRow>
  QAction* addRowAction(const QString& text, const char* objectName, OnRow onRow);

  RunFolderActions* m_folderActions;
  QAction* m_resume = nullptr;
  QAction* m_evaluate = nullptr;
};

}  // namespace ensemble::ui
