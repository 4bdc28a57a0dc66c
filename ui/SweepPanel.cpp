// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SweepPanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "core/runs/Sweep.h"
#include "ui/FlowLayout.h"
#include "ui/SweepQueue.h"

namespace ensemble::ui {

SweepPanel::SweepPanel(SweepQueue& queue, QWidget* parent)
    : QWidget(parent),
      m_queue(queue),
      m_jobs(new SweepJobsModel(queue, this)),
      m_summary(new QLabel),
      m_table(new QTableView),
      m_pause(new QPushButton(tr("Pause queue"))),
      m_resume(new QPushButton(tr("Resume queue"))),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_up(new QPushButton(tr("Move up"))),
      m_down(new QPushButton(tr("Move down"))) {
  m_summary->setWordWrap(true);
  m_table->setModel(m_jobs);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // The message takes the width the other columns leave: a failed job's reason (a sentence
  // with what to do) ends in "…" there, whole in its tooltip, rather than widening the table
  // past the tab and hiding the rest behind a sideways scroll.
  m_table->horizontalHeader()->setSectionResizeMode(Column::Message, QHeaderView::Stretch);
  m_table->verticalHeader()->hide();
  m_pause->setToolTip(tr("Let the running job finish, then start no other"));
  m_cancel->setToolTip(tr("Stop the running job now (it keeps a checkpoint) and start no other"));
  m_up->setToolTip(tr("Run the selected pending job earlier"));
  auto* buttons = new FlowLayout;  // on as many lines as the tab's width needs
  for (QPushButton* button : {m_pause, m_resume, m_cancel, m_up, m_down}) buttons->addWidget(button);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_summary);
  layout->addWidget(m_table, 1);
  layout->addLayout(buttons);
  connect(m_pause, &QPushButton::clicked, &m_queue, &SweepQueue::pause);
  connect(m_resume, &QPushButton::clicked, &m_queue, &SweepQueue::resume);
  connect(m_cancel, &QPushButton::clicked, &m_queue, &SweepQueue::cancel);
  connect(m_up, &QPushButton::clicked, this, [this] { move(-1); });
  connect(m_down, &QPushButton::clicked, this, [this] { move(+1); });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SweepPanel::refresh);
  connect(&m_queue, &SweepQueue::changed, this, &SweepPanel::refresh);
  refresh();
}

QString SweepPanel::summaryText() const { return m_summary->text(); }

int SweepPanel::selectedRow() const {
  const QModelIndexList rows = m_table->selectionModel()->selectedRows();
  return rows.isEmpty() ? -1 : rows.front().row();
}

void SweepPanel::move(int delta) {
  const int row = selectedRow();
  if (m_queue.moveJob(row, delta)) m_table->selectRow(row + delta);
}

void SweepPanel::refresh() {
  const auto& jobs = m_queue.sweep().jobs;
  const int selected = selectedRow();
  int done = 0;
  for (const SweepJob& job : jobs) done += job.status == JobStatus::Completed || job.status == JobStatus::Failed;
  if (!m_queue.hasSweep()) {
    m_summary->setText(tr("No sweep yet: Run > New sweep… trains every combination of a grid of settings, "
                          "one run after another."));
  } else {
    QString state = m_queue.isDone()                ? tr("finished")
                    : m_queue.runningJob() >= 0     ? tr("training job %1").arg(m_queue.runningJob() + 1)
                    : m_queue.isPaused()            ? tr("paused")
                                                    : tr("waiting for the current run to end");
    m_summary->setText(tr("Sweep %1: %2 of %3 jobs done, %4.").arg(m_queue.folder()).arg(done).arg(jobs.size()).arg(state));
  }
  const bool pendingSelected = selected >= 0 && selected < int(jobs.size()) &&
                               jobs[std::size_t(selected)].status == JobStatus::Pending;
  m_pause->setEnabled(m_queue.hasSweep() && !m_queue.isPaused() && !m_queue.isDone());
  m_resume->setEnabled(m_queue.hasSweep() && m_queue.isPaused() && !m_queue.isDone());
  m_cancel->setEnabled(m_queue.runningJob() >= 0);
  m_up->setEnabled(pendingSelected);
  m_down->setEnabled(pendingSelected);
}

}  // namespace ensemble::ui
