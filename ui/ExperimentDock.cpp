// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ExperimentDock.h"

#include <QAction>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include "ui/ExperimentForm.h"

namespace ensemble::ui {

ExperimentDock::ExperimentDock(ExperimentForm* form, QAction* start, QWidget* parent)
    : QDockWidget(tr("Experiment"), parent) {
  auto* setupPanel = new QWidget;
  auto* setupLayout = new QVBoxLayout(setupPanel);
  setupLayout->addWidget(form);
  auto* startButton = new QPushButton(start->icon(), tr("Start training"));
  connect(startButton, &QPushButton::clicked, start, &QAction::trigger);
  connect(start, &QAction::changed, startButton, [start, startButton] { startButton->setEnabled(start->isEnabled()); });
  setupLayout->addWidget(startButton);
  setupLayout->addStretch(1);  // a tall panel's spare height goes below the form, not into its rows
  auto* scroll = new QScrollArea;
  scroll->setWidget(setupPanel);
  scroll->setWidgetResizable(true);
  // The panel scrolls up and down on a short screen, never sideways: the dock is as wide as
  // the form needs (at its narrowest, scroll bar included), so no field is cut off.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(setupPanel->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() +
                          2 * scroll->frameWidth());
  setObjectName("experimentDock");
  setWidget(scroll);
  setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
}

}  // namespace ensemble::ui
