// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's status bar: one line saying what the run (or the window) is doing, and the
// run's progress bar. It phrases the engine's events as a person reads them: preparing,
// epoch and step with speed and ETA, evaluating at an epoch's end, stopping, stopped where,
// finished or failed (the bar is not left standing where a run failed).
#include <QObject>
#include <QString>
#include <QVector>

#include "ui/EngineMetaTypes.h"

class QProgressBar;
class QStatusBar;

namespace ensemble::ui {

class ElidedLabel;

class RunStatusLine final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunStatusLine)

 public:
  /// Adds the line and the bar to `bar`.
  explicit RunStatusLine(QStatusBar* bar);

  QString text() const;
  void setText(const QString& text);

  void preparing(const QString& dataset);
  void runStarted(const RunStartedEvent& event);
  /// `stopping`/`paused`: what the controller is doing; each keeps its own line.
  void stepsDone(const StepEvent& last, bool stopping, bool paused);
  void stopRequested();
  /// `message`: the engine's, already in the window's labels.
  void runFinished(const RunFinishedEvent& event, const QString& message);

 private:
  ElidedLabel* m_text;  ///< one line, the whole in its tooltip: a message quoting a path had widened the window
  QProgressBar* m_progress;
};

}  // namespace ensemble::ui
