// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SweepJobsModel.h"

#include <QBrush>
#include <QColor>

#include "core/runs/Sweep.h"
#include "ui/EngineMessage.h"
#include "ui/SweepQueue.h"

namespace ensemble::ui {

SweepJobsModel::SweepJobsModel(const SweepQueue& queue, QObject* parent)
    : QAbstractTableModel(parent), m_queue(queue), m_rows(int(queue.sweep().jobs.size())) {
  connect(&queue, &SweepQueue::changed, this, &SweepJobsModel::queueChanged);
}

void SweepJobsModel::queueChanged() {
  const int rows = int(m_queue.sweep().jobs.size());
  if (rows != m_rows) {  // another sweep: new rows
    beginResetModel();
    m_rows = rows;
    endResetModel();
  } else if (rows > 0) {  // a job's state, score or place: the selection stays
    emit dataChanged(index(0, 0), index(rows - 1, ColumnCount - 1));
  }
}

int SweepJobsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : m_rows; }
int SweepJobsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SweepJobsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(m_queue.sweep().jobs.size())) return {};
  const SweepJob& job = m_queue.sweep().jobs[std::size_t(index.row())];
  if (role == Qt::ForegroundRole && index.column() == State && job.status == JobStatus::Failed) {
    return QBrush(QColor(198, 40, 40));
  }
  if (role != Qt::DisplayRole && !(role == Qt::ToolTipRole && index.column() == Message)) return {};
  switch (Column(index.column())) {
    case Job: return QString::fromStdString(job.name);
    case State: return QString::fromStdString(jobStatusName(job.status));
    case TestAccuracy: {
      const std::optional<double> accuracy = m_queue.testAccuracy(index.row());
      return accuracy ? QString::number(*accuracy, 'f', 4) : QString();
    }
    case Message: return inLabels(job.message);
    case ColumnCount: break;
  }
  return {};
}

QVariant SweepJobsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (Column(section)) {
    case Job: return tr("Job");
    case State: return tr("State");
    case TestAccuracy: return tr("Test acc.");
    case Message: return tr("Message");
    case ColumnCount: break;
  }
  return {};
}

}  // namespace ensemble::ui
