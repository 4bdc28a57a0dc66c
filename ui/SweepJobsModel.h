// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Sweep tab's table: one row per job of the window's SweepQueue (name, state, test
// accuracy, message), updated from the queue's `changed`, which its jobs' run events
// drive. Nothing is read from disk here: the scores come with the events
// (SweepQueue::testAccuracy).
#include <QAbstractTableModel>

namespace ensemble::ui {

class SweepQueue;

class SweepJobsModel final : public QAbstractTableModel {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(SweepJobsModel)

 public:
  enum Column { Job, State, TestAccuracy, Message, ColumnCount };

  explicit SweepJobsModel(const SweepQueue& queue, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  void queueChanged();

  const SweepQueue& m_queue;
  int m_rows = 0;
};

}  // namespace ensemble::ui
