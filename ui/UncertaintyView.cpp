// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/UncertaintyView.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

#include "ui/AnalysisController.h"
#include "ui/MessageLabel.h"
#include "ui/MistakesView.h"
#include "ui/OodView.h"
#include "ui/ReliabilityDiagram.h"
#include "ui/ShiftView.h"

namespace ensemble::ui {

UncertaintyView::UncertaintyView(QWidget* parent)
    : QWidget(parent),
      m_analysis(new AnalysisController(this)),
      m_runLabel(new QLabel),
      m_status(new MessageLabel),  // "Failed: …" quotes a path
      m_progress(new QProgressBar),
      m_cancel(new QPushButton(tr("Cancel"))),
      m_pages(new QTabWidget),
      m_reliability(new ReliabilityDiagram),
      m_shift(new ShiftView(*m_analysis)),
      m_ood(new OodView(*m_analysis)),
      m_mistakes(new MistakesView(*m_analysis)) {
  m_pages->setDocumentMode(true);
  // Tabs across the top: down the side their names were cut ("et shift") at 1400x900.
  m_pages->setTabPosition(QTabWidget::North);
  m_pages->addTab(m_reliability, tr("Reliability"));
  m_pages->addTab(m_shift, tr("Dataset shift"));
  m_pages->addTab(m_ood, tr("Out of distribution"));
  m_pages->addTab(m_mistakes, tr("Confusion && gallery"));
  m_progress->setMaximumWidth(240);
  m_progress->hide();
  m_cancel->setToolTip(tr("Stop the computation at its next step"));
  m_cancel->hide();
  // Two long run names and the note on the runs left out wrap: on one line they had made
  // the window's minimum width more than 1400 px (five runs selected).
  m_runLabel->setWordWrap(true);
  m_runLabel->setObjectName("runLabel");

  connect(m_cancel, &QPushButton::clicked, m_analysis, &AnalysisController::cancel);
  connect(m_analysis, &AnalysisController::busyChanged, this, &UncertaintyView::setBusy);
  connect(m_analysis, &AnalysisController::progress, this, [this](int done, int total, const QString& what) {
    m_progress->setRange(0, total);
    m_progress->setValue(done);
    if (!what.isEmpty()) m_status->setText(what);
  });
  connect(m_analysis, &AnalysisController::jobEnded, this, [this](bool cancelled, const QString& error) {
    if (!error.isEmpty()) {
      m_status->setText(tr("Failed: %1").arg(error));
      emit failed(tr("The computation failed"), error);
    } else {
      m_status->setText(cancelled ? tr("Cancelled; what was computed before is shown.") : tr("Done."));
    }
  });
  connect(m_ood, &OodView::folderRefused, this,
          [this](const QString& message) { emit failed(tr("Not a usable out-of-distribution folder"), message); });
  for (auto* page : {static_cast<QObject*>(m_reliability), static_cast<QObject*>(m_shift), static_cast<QObject*>(m_ood),
                     static_cast<QObject*>(m_mistakes)}) {
    connect(page, SIGNAL(exported(QString, QString)), this, SIGNAL(exported(QString, QString)));
  }

  auto* top = new QHBoxLayout;
  // The runs' names share the width with the status: without a stretch of its own the label
  // was squeezed to a few words a line ("ensemble ×2 · lr" over "0.1 · 6k imgs") beside an
  // empty status.
  top->addWidget(m_runLabel, 2);
  top->addWidget(m_status, 1);
  top->addWidget(m_progress);
  top->addWidget(m_cancel);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(top);
  layout->addWidget(m_pages, 1);
  setRuns({});
}

UncertaintyView::~UncertaintyView() = default;

QString UncertaintyView::statusText() const { return m_status->text(); }

void UncertaintyView::setRuns(const RunChoices& runs) {
  QStringList labels;
  for (const RunChoice& run : runs.mid(0, kComparedRuns)) labels << run.label.toHtmlEscaped();
  QString shown = runs.isEmpty() ? tr("<i>Select a run (or two to compare) in the Runs tab.</i>")
                                 : tr("<b>%1</b>").arg(labels.join(tr(" vs ")));
  if (runs.size() > kComparedRuns) {
    shown += tr(" <i>(%n more selected run(s) not shown: these pages compare two)</i>", "", int(runs.size()) - kComparedRuns);
  }
  m_runLabel->setText(shown);
  m_shift->setRuns(runs);
  m_ood->setRuns(runs);
  m_mistakes->setRuns(runs);
}

void UncertaintyView::showResult(const EvaluationResult& result, const QString& runLabel) {
  m_reliability->showResult(result, runLabel);
}

void UncertaintyView::clearResult(const QString& why) { m_reliability->clear(why); }

void UncertaintyView::showComparison(const EvaluationResult* result, const QString& runLabel) {
  m_reliability->setComparison(result, runLabel);
}

void UncertaintyView::setBusy(bool busy) {
  m_progress->setVisible(busy);
  m_cancel->setVisible(busy);
  if (busy) {
    m_progress->setValue(0);
    m_status->setText(tr("Working…"));
  }
  for (QPushButton* compute : {m_shift->computeButton(), m_ood->computeButton(), m_mistakes->computeButton()}) {
    compute->setEnabled(!busy);
  }
}

}  // namespace ensemble::ui
