// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Run > New sweep…: the grid of a sweep over the form's settings, one axis per line
// ("lr = 0.05, 0.1"), checked as it is typed with the engine's own planning (every job's
// settings validated), so OK is only enabled for a sweep that can start.
#include <QDialog>
#include <optional>

#include "core/config/ExperimentConfig.h"
#include "core/runs/Sweep.h"

class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;

namespace ensemble::ui {

class SweepDialog final : public QDialog {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(SweepDialog)

 public:
  SweepDialog(const ExperimentConfig& base, QWidget* parent = nullptr);

  QPlainTextEdit* gridEdit() const { return m_grid; }
  QString verdict() const;
  /// The sweep as typed, or none while the grid is invalid.
  const std::optional<Sweep>& plan() const { return m_plan; }

 private:
  void check();

  ExperimentConfig m_base;
  QPlainTextEdit* m_grid;
  QLabel* m_verdict;
  QDialogButtonBox* m_buttons;
  std::optional<Sweep> m_plan;
};

}  // namespace ensemble::ui
