// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunListView.h"

#include <QAction>
#include <QHeaderView>
#include <QMenu>
#include <QSettings>

#include "ui/RunColumns.h"
#include "ui/RunFolderActions.h"
#include "ui/RunsModel.h"

namespace ensemble::ui {

RunListView::RunListView(RunsModel& runs, QWidget* parent)
    : QTableView(parent), m_folderActions(new RunFolderActions(this, runs)) {
  setModel(&runs);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  // Tab leaves the list (arrow keys move in it): it had walked the table cell by cell, each
  // row it reached selected and plotted, some 18 presses a run.
  setTabKeyNavigation(false);
  // Every column as wide as its content, run names first among them; the spare width stays
  // empty at the right instead of going to the last column.
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  horizontalHeader()->setStretchLastSection(false);
  verticalHeader()->hide();
  new RunColumns(horizontalHeader());  // the results in view; shown, hidden and moved as chosen
  // Sorted by a click on a column's header, the list stays so as runs start and end; a third
  // click on it goes back to the folders' order, newest first (RunsModel::sort). The order
  // chosen comes back at the next start.
  QSettings settings;
  const int column = settings.value("runs/sortColumn", -1).toInt();
  const auto order = Qt::SortOrder(settings.value("runs/sortOrder", int(Qt::AscendingOrder)).toInt());
  horizontalHeader()->setSortIndicator(column >= 0 && column < RunsModel::ColumnCount ? column : -1,
                                       order == Qt::DescendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder);
  horizontalHeader()->setSortIndicatorClearable(true);
  setSortingEnabled(true);
  connect(horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, [](int section, Qt::SortOrder chosen) {
    QSettings settings;
    settings.setValue("runs/sortColumn", section);
    settings.setValue("runs/sortOrder", int(chosen));
  });
  // The menu acts on the run under the pointer: a right-click on an unselected row selects
  // it first, as file managers do, and one below the rows opens nothing (it had opened the
  // menu of whatever was selected, out of sight).
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint& position) {
    const QModelIndex index = indexAt(position);
    if (!index.isValid()) return;
    if (!selectionModel()->isRowSelected(index.row(), {})) selectRow(index.row());
    QMenu::exec(actions(), viewport()->mapToGlobal(position), nullptr, this);
  });
  m_resume = addRowAction(tr("Resume"), "resumeAction", [this](int row) { emit resumeRequested(row); });
  m_evaluate = addRowAction(tr("Evaluate on the chosen dataset"), "evaluateAction",
                            [this](int row) { emit evaluateRequested(row); });
  addRowAction(tr("Select its seed group"), "selectSeedGroupAction", [this, &runs](int row) {
    const QVector<int> rows = runs.rowsOfSeedGroup(runs.record(row).seedGroup);
    if (rows.isEmpty()) return emit failed(tr("Select its seed group"), tr("No other run differs from this one only in seed."));
    QItemSelection selection;
    for (const int r : rows) selection.select(runs.index(r, 0), runs.index(r, RunsModel::ColumnCount - 1));
    selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  });
  addRowAction(tr("Rename…"), "renameAction", [this](int row) { m_folderActions->rename(row); });
  addRowAction(tr("Delete…"), "deleteAction", [this](int) { m_folderActions->remove(selectedRows()); });
  connect(m_folderActions, &RunFolderActions::runsChanged, this, &RunListView::runsChanged);
  connect(m_folderActions, &RunFolderActions::failed, this, &RunListView::failed);
  connect(selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunListView::runsChanged);
}

template <typename OnRow>
QAction* RunListView::addRowAction(const QString& text, const char* objectName, OnRow onRow) {
  auto* action = new QAction(text, this);
  action->setObjectName(objectName);
  connect(action, &QAction::triggered, this, [this, text, onRow] {
    const int row = firstSelectedRow();
    if (row < 0) return emit failed(QString(text).remove(QChar(0x2026)), tr("Select a run in the Runs list first."));
    onRow(row);
  });
  addAction(action);
  return action;
}

QVector<int> RunListView::selectedRows() const {
  QVector<int> rows;
  for (const QModelIndex& index : selectionModel()->selectedRows()) rows.push_back(index.row());
  std::sort(rows.begin(), rows.end());
  return rows;
}

int RunListView::firstSelectedRow() const {
  const QVector<int> rows = selectedRows();
  return rows.isEmpty() ? -1 : rows.front();
}

}  // namespace ensemble::ui
