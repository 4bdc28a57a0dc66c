// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Sweep tab: the window's sweep queue (SweepQueue) as a table of its jobs with their
// state, test accuracy and message (SweepJobsModel), and the buttons that pause, resume,
// cancel and reorder it. Starting a sweep is the window's (Run > New sweep…, Run > Open
// sweep…).
#include <QWidget>

#include "ui/SweepJobsModel.h"

class QLabel;
class QPushButton;
class QTableView;

namespace ensemble::ui {

class SweepQueue;

class SweepPanel final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(SweepPanel)

 public:
  using Column = SweepJobsModel::Column;

  explicit SweepPanel(SweepQueue& queue, QWidget* parent = nullptr);

  QTableView* table() const { return m_table; }
  QPushButton* pauseButton() const { return m_pause; }
  QPushButton* resumeButton() const { return m_resume; }
  QPushButton* cancelButton() const { return m_cancel; }
  QPushButton* upButton() const { return m_up; }
  QPushButton* downButton() const { return m_down; }
  QString summaryText() const;

 private:
  /// The summary line and which buttons apply, after the queue or the selection changed.
  void refresh();
  void move(int delta);
  int selectedRow() const;

  SweepQueue& m_queue;
  SweepJobsModel* m_jobs;
  QLabel* m_summary;
  QTableView* m_table;
  QPushButton *m_pause, *m_resume, *m_cancel, *m_up, *m_down;
};

}  // namespace ensemble::ui
