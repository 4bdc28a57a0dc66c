// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunStatusLine.h"

#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QTimer>

#include "core/common/TextFormat.h"
#include "ui/ElidedLabel.h"

namespace ensemble::ui {

RunStatusLine::RunStatusLine(QStatusBar* bar, std::chrono::milliseconds briefFor)
    : QObject(bar), m_text(new ElidedLabel({})), m_progress(new QProgressBar), m_briefTimer(new QTimer(this)) {
  m_progress->setMaximumWidth(320);
  m_progress->setFormat(tr("%p%"));
  bar->addWidget(m_text, 1);
  bar->addPermanentWidget(m_progress);
  m_briefTimer->setSingleShot(true);
  m_briefTimer->setInterval(briefFor);
  connect(m_briefTimer, &QTimer::timeout, this, [this] { m_text->setFullText(m_lasting); });
}

QString RunStatusLine::text() const { return m_text->fullText(); }
QString RunStatusLine::lastingText() const { return m_lasting; }

void RunStatusLine::setText(const QString& text) {
  m_briefTimer->stop();
  m_lasting = text;
  m_text->setFullText(text);
}

void RunStatusLine::updateText(const QString& text) {
  m_lasting = text;
  if (!m_briefTimer->isActive()) m_text->setFullText(text);
}

void RunStatusLine::sayBriefly(const QString& text) {
  m_text->setFullText(text);
  m_briefTimer->start();  // a second brief message has its own full time
}

void RunStatusLine::preparing(const QString& dataset) {
  setText(tr("Preparing %1 (loading data, building replicas)…").arg(dataset));
  m_progress->setValue(0);
}

void RunStatusLine::runStarted(const RunStartedEvent& event) {
  m_progress->setRange(0, int(event.config.epochs * event.stepsPerEpoch));
  setText(tr("Training %1 %2 on %3…")
              .arg(QString::fromStdString(modeName(event.config.mode)),
                   QString::fromStdString(modelName(event.config.model)), QString::fromStdString(event.devices)));
}

void RunStatusLine::stepsDone(const StepEvent& last, bool stopping, bool paused) {
  m_progress->setValue(int(last.globalStep));
  if (stopping || paused) return;  // "Stopping…" and "Paused" stay until the run moves on
  if (last.stepInEpoch == last.stepsPerEpoch) {
    // The epoch's last step: the test set is evaluated now (seconds), not trained on.
    updateText(tr("Epoch %1/%2 trained · evaluating on the test set…").arg(last.epoch).arg(last.epochs));
    return;
  }
  // A varying rate (a warmup, a schedule) is said as it moves; a constant one is the run's lr.
  const QString rate = last.learningRate ? tr(" · lr %1").arg(*last.learningRate, 0, 'g', 4) : QString();
  updateText(tr("Epoch %1/%2 · step %3/%4%5 · %6 img/s · ETA %7")
              .arg(last.epoch).arg(last.epochs).arg(last.stepInEpoch).arg(last.stepsPerEpoch).arg(rate)
              .arg(last.imagesPerSecond, 0, 'f', 0).arg(QString::fromStdString(formatDuration(last.etaSeconds))));
}

void RunStatusLine::stopRequested() {
  // The run stops at its next step boundary, after an evaluation in progress: say so.
  setText(tr("Stopping after the current step (and an evaluation in progress)…"));
}

void RunStatusLine::runFinished(const RunFinishedEvent& event, const QString& message) {
  switch (event.status) {
    case RunStatus::Completed:
      setText(tr("Run finished: %1").arg(QFileInfo(QString::fromStdString(event.runDirectory)).fileName()));
      break;
    case RunStatus::Stopped: {
      // The engine's message says where ("stopped at step 46 (epoch 1); …"): it is the status.
      QString text = message.isEmpty() ? tr("Stopped.") : message;
      text[0] = text[0].toUpper();
      setText(text);
      break;
    }
    default:
      m_progress->reset();  // no bar left standing at the step where it failed
      setText(tr("Run failed: %1").arg(message));
  }
}

}  // namespace ensemble::ui
