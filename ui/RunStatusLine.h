// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's status bar: one line saying what the run (or the window) is doing, and the
// run's progress bar. It phrases the engine's events as a person reads them: preparing,
// epoch and step with speed and ETA, evaluating at an epoch's end, stopping, stopped where,
// finished or failed (the bar is not left standing where a run failed). What an action
// says of itself (a file saved) is said briefly, over that line, as QStatusBar's own
// temporary messages are: the line it covers comes back, kept up to date meanwhile.
#include <QObject>
#include <QString>
#include <QVector>
#include <chrono>

#include "ui/EngineMetaTypes.h"

class QProgressBar;
class QStatusBar;
class QTimer;

namespace ensemble::ui {

class ElidedLabel;

class RunStatusLine final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunStatusLine)

 public:
  /// How long a brief message stays: long enough to read a path in it.
  static constexpr std::chrono::milliseconds kBriefFor{8000};

  /// Adds the line and the bar to `bar`; a brief message stays `briefFor`.
  explicit RunStatusLine(QStatusBar* bar, std::chrono::milliseconds briefFor = kBriefFor);

  /// What the line shows now: a brief message while one is shown, else the lasting text.
  QString text() const;
  /// What the run or the window is doing, shown or under a brief message.
  QString lastingText() const;
  /// A new state (a run started, stopped, failed; an evaluation): shown at once, ending a
  /// brief message.
  void setText(const QString& text);
  /// The same state with newer numbers (a step's progress, the ready line's count of runs):
  /// under a brief message, shown once it is over.
  void updateText(const QString& text);
  /// Says `text` for `briefFor`, then the lasting text comes back. A saved file's "Saved
  /// PATH" had stayed until the next run, hours later, hiding what the window had said,
  /// and during a run the next step's progress had replaced it at once, unread.
  void sayBriefly(const QString& text);

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
  QTimer* m_briefTimer;  ///< active while a brief message covers the lasting text
  QString m_lasting;
};

}  // namespace ensemble::ui
