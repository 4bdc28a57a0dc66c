// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's left dock: the experiment form with a Start button under it, scrolling up
// and down on a short screen and never sideways (the dock is as wide as the form needs).
#include <QDockWidget>

class QAction;

namespace ensemble::ui {

class ExperimentForm;

class ExperimentDock final : public QDockWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ExperimentDock)

 public:
  /// `start` is the window's Start action: the button triggers it and follows its state.
  ExperimentDock(ExperimentForm* form, QAction* start, QWidget* parent = nullptr);
};

}  // namespace ensemble::ui
