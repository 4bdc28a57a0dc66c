// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SweepDialog.h"

#include <algorithm>

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

#include "core/common/Error.h"
#include "core/train/SweepCheck.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {

SweepDialog::SweepDialog(const ExperimentConfig& base, QWidget* parent)
    : QDialog(parent),
      m_base(base),
      m_grid(new QPlainTextEdit),
      m_verdict(new QLabel),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel)) {
  setWindowTitle(tr("New sweep"));
  auto* intro = new QLabel(tr("Every combination of these values trains as its own run, one after another, with the "
                              "Experiment form's other settings. One setting per line, e.g.:\n"
                              "lr = 0.05, 0.1\nmode = single, ensemble\nseed = 0, 1, 2\n"
                              "Settings that move together share a line, their values joined by ':', e.g.:\n"
                              "batch_size, lr = 256:0.1, 512:0.2"));
  intro->setWordWrap(true);
  m_grid->setObjectName("sweepGrid");
  m_grid->setPlaceholderText("seed = 0, 1, 2");
  m_verdict->setObjectName("sweepVerdict");
  m_verdict->setWordWrap(true);
  m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Start sweep"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addWidget(m_grid, 1);
  layout->addWidget(m_verdict);
  layout->addWidget(m_buttons);
  // The grid typed last comes back, after Cancel too (a long grid had been lost to a slip).
  m_grid->setPlainText(QSettings().value("sweep/grid").toString());
  connect(m_grid, &QPlainTextEdit::textChanged, this, [this] { QSettings().setValue("sweep/grid", m_grid->toPlainText()); });
  connect(m_grid, &QPlainTextEdit::textChanged, this, &SweepDialog::check);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  resize(520, 360);
  check();
}

QString SweepDialog::verdict() const { return m_verdict->text(); }

void SweepDialog::check() {
  m_plan.reset();
  std::vector<SweepAxis> grid;
  try {
    for (QString line : m_grid->toPlainText().split('\n')) {
      line.remove(' ');
      if (!line.isEmpty()) grid.push_back(parseSweepAxis(line.toStdString()));
    }
    if (grid.empty()) {
      m_verdict->setText(tr("Give at least one setting and its values."));
    } else {
      // The form's devices suit its mode; a sweep over modes gives each its own default.
      const auto sets = [&](const char* key) {
        return std::any_of(grid.begin(), grid.end(), [&](const SweepAxis& axis) { return axis.sets(key); });
      };
      ExperimentConfig base = m_base;
      if (sets("mode") && !sets("devices")) base.devices.clear();
      Sweep plan = planSweep(base, grid);
      // Each job as train would check it before it trains: a clash of settings (mode single
      // with cpu*2), a missing init_from file or a batch larger than the training set would
      // otherwise fail only when its job starts, after the jobs before it trained (the CLI's
      // sweep checks the same).
      checkSweepJobs(plan);
      m_plan = std::move(plan);
      const int runs = int(m_plan->jobs.size());
      m_verdict->setText((runs == 1 ? tr("1 run.") : tr("%1 runs, one after another.").arg(runs)) +
                         (base.devices.empty() ? tr(" Devices: each mode's default.") : QString()));
    }
  } catch (const Error& e) {
    m_verdict->setText(inLabels(e.what()));
  }
  m_verdict->setStyleSheet(m_plan ? QString() : QString("color: #c62828"));
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_plan.has_value());
}

}  // namespace ensemble::ui
