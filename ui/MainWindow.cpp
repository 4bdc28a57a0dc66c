// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/MainWindow.h"

#include <algorithm>

#include <qcustomplot.h>

#include <QAction>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

#include "core/common/TextFormat.h"
#include "core/common/ErrorMessage.h"
#include "core/io/CheckpointPresence.h"
#include "core/io/RunDirectory.h"
#include "core/metrics/TestSetChange.h"
#include "ui/DialogFolders.h"
#include "ui/EngineMessage.h"
#include "ui/EnsembleBreakdownView.h"
#include "ui/ExperimentDock.h"
#include "ui/ExperimentForm.h"
#include "ui/ExportActions.h"
#include "ui/PlotPanel.h"
#include "ui/ReliabilityDiagram.h"
#include "ui/RunChoice.h"
#include "ui/RunColors.h"
#include "ui/RunController.h"
#include "ui/RunListView.h"
#include "ui/RunStatusLine.h"
#include "ui/RunsFolderWatcher.h"
#include "ui/RunsModel.h"
#include "ui/PlotSelection.h"
#include "ui/SweepDialog.h"
#include "ui/SweepPanel.h"
#include "ui/SweepQueue.h"
#include "ui/TabPaneHeights.h"
#include "ui/UncertaintyView.h"

namespace ensemble::ui {
namespace {

/// The desktop theme's icon where it has one, ours (compiled in) otherwise.
QIcon themed(const char* name, const char* ours) { return QIcon::fromTheme(name, QIcon(ours)); }

}  // namespace

MainWindow::MainWindow(const QString& runsRoot, QWidget* parent)
    : QMainWindow(parent),
      m_runsRoot(runsRoot.isEmpty() ? QString::fromStdString(RunDirectory::defaultRunsRoot()) : runsRoot),
      m_form(new ExperimentForm),
      m_controller(new RunController(this)),
      m_runs(new RunsModel(this)),
      m_runsView(new RunListView(*m_runs)),
      m_plotPanel(new PlotPanel),
      m_breakdown(new EnsembleBreakdownView),
      m_uncertainty(new UncertaintyView),
      m_export(new ExportActions(this, *m_plotPanel, *m_runsView, *m_runs)),
      m_sweepQueue(new SweepQueue(*m_controller, this)),
      m_sweepPanel(new SweepPanel(*m_sweepQueue)),
      m_folderWatcher(new RunsFolderWatcher(m_runsRoot, this)) {
  setWindowTitle(tr("EnsembleLab"));
  setWindowIcon(QIcon(":/icons/ensemble-lab.svg"));
  m_runs->scan(m_runsRoot);
  m_folderWatcher->watch(*m_runs);
  buildActions();
  buildLayout();

  connect(m_form, &ExperimentForm::validityChanged, this, &MainWindow::updateActions);
  connect(m_form, &ExperimentForm::folderRefused, this,
          [this](const QString& message) { showError(tr("Not a dataset folder"), message); });
  connect(m_plotPanel, &PlotPanel::groupingChanged, this, &MainWindow::showRunsOnPlots);
  connect(m_sweepQueue, &SweepQueue::failed, this, [this](const QString& message) { showError(tr("The sweep"), message); });
  connect(m_runsView, &RunListView::runsChanged, this, [this] {
    showRunsOnPlots();
    showEnsembleBreakdown(m_runsView->firstSelectedRow());
    offerSelectedRuns();
    updateActions();
  });
  connect(m_folderWatcher, &RunsFolderWatcher::changed, this, &MainWindow::refreshRuns);
  connect(m_runsView, &RunListView::resumeRequested, this, &MainWindow::resumeRun);
  connect(m_runsView, &RunListView::evaluateRequested, this, &MainWindow::evaluateRun);
  connect(m_runsView, &RunListView::failed, this, &MainWindow::showError);
  connect(m_export, &ExportActions::saved, m_status, &RunStatusLine::sayBriefly);
  connect(m_export, &ExportActions::failed, this, &MainWindow::showError);
  connect(m_uncertainty, &UncertaintyView::exported, this, [this](const QString& error, const QString& path) {
    if (!error.isEmpty()) showError(tr("Export failed"), error);
    else m_status->sayBriefly(tr("Saved %1").arg(path));
  });
  connect(m_uncertainty, &UncertaintyView::failed, this, &MainWindow::showError);
  connect(m_controller, &RunController::runStarted, this, &MainWindow::onRunStarted);
  connect(m_controller, &RunController::stepsReady, this, &MainWindow::onSteps);
  connect(m_controller, &RunController::epochFinished, this, &MainWindow::onEpoch);
  connect(m_controller, &RunController::evaluated, this, [this](const EvaluationEvent& event) {
    m_runs->evaluationDone(event);
    m_plotPanel->markChanged();
  });
  connect(m_controller, &RunController::runFinished, this, &MainWindow::onRunFinished);
  connect(m_controller, &RunController::evaluationFinished, this, &MainWindow::onEvaluated);
  connect(m_controller, &RunController::pausedChanged, this, [this](bool paused) {
    m_status->setText(paused ? tr("Paused") : tr("Training…"));
    m_runs->setPaused(paused);
    updateActions();
  });

  QSettings settings;
  m_form->load(settings);
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  // The size it had (1400x900 the first time), within the screen it opens on: 1400x900 had
  // put a 1280x720 screen's status bar and two plots out of reach, and Qt shrinks a window
  // saved on a larger screen to two thirds of this one (853x480, one plot in sight).
  if (!isMaximized() && !isFullScreen()) {
    const QSize wanted = settings.value("window/size", QSize(1400, 900)).toSize();
    resize(screen() ? wanted.boundedTo(screen()->availableGeometry().size()) : wanted);
  }
  updateActions();
  m_readyText = readyText();
  m_status->setText(m_readyText);
}

QString MainWindow::readyText() const {
  const int runs = m_runs->rowCount();
  return (runs == 1 ? tr("Ready. 1 run in %1") : tr("Ready. %1 runs in %2").arg(runs)).arg(m_runsRoot);
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
  m_start = new QAction(themed("media-playback-start", ":/icons/start.svg"), tr("&Start"), this);
  m_start->setShortcut(Qt::CTRL | Qt::Key_R);
  m_pause = new QAction(themed("media-playback-pause", ":/icons/pause.svg"), tr("&Pause"), this);
  m_pause->setCheckable(true);
  m_stop = new QAction(themed("media-playback-stop", ":/icons/stop.svg"), tr("S&top"), this);
  auto* openFolder = new QAction(themed("document-open", ":/icons/open.svg"), tr("&Open dataset folder…"), this);
  auto* quit = new QAction(tr("&Quit"), this);
  quit->setShortcut(QKeySequence::Quit);

  connect(m_start, &QAction::triggered, this, &MainWindow::startRun);
  connect(m_pause, &QAction::toggled, this, [this](bool paused) {
    if (paused) m_controller->pause();
    else m_controller->unpause();
  });
  connect(m_stop, &QAction::triggered, this, [this] {
    m_status->stopRequested();
    m_controller->stop();
  });
  connect(openFolder, &QAction::triggered, this, [this] {
    const QString folder = dialogs::existingDirectory(this, tr("Open an MNIST-format dataset folder"), dialogs::Place::Datasets);
    if (folder.isEmpty()) return;
    if (const QString error = m_form->openDatasetFolder(folder); !error.isEmpty()) {
      showError(tr("Not a dataset folder"), error);
    }
  });
  connect(quit, &QAction::triggered, this, &QWidget::close);

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(openFolder);
  file->addSeparator();
  file->addActions({m_export->plotAction(), m_export->metricsAction(), m_export->checkpointAction(), m_export->runsAction()});
  file->addAction(m_export->captionAction());
  file->addSeparator();
  file->addAction(quit);
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addActions({m_start, m_pause, m_stop});
  run->addSeparator();
  // The run list's own Resume and Evaluate, which act on its selection.
  m_resumeSelected = run->addAction(tr("&Resume selected run"), m_runsView->resumeAction(), &QAction::trigger);
  m_resumeSelected->setObjectName("resumeSelectedAction");
  m_evaluateSelected = run->addAction(tr("&Evaluate selected run on the chosen dataset"), m_runsView->evaluateAction(),
                                      &QAction::trigger);
  run->addSeparator();
  QAction* newSweep = run->addAction(tr("New &sweep…"), this, [this] {
    if (!m_form->isValid()) return showError(tr("New sweep"), tr("Fix the marked fields first: they are every run's settings."));
    SweepDialog dialog(m_form->config(), this);
    if (dialog.exec() == QDialog::Accepted && dialog.plan()) startSweep(*dialog.plan());
  });
  newSweep->setObjectName("newSweepAction");
  QAction* openSweepAction = run->addAction(tr("&Open sweep…"), this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open a sweep folder"), m_runsRoot);
    if (!folder.isEmpty()) openSweep(folder);
  });
  openSweepAction->setObjectName("openSweepAction");
  m_viewMenu = menuBar()->addMenu(tr("&View"));
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About EnsembleLab"), this, [this] {
    QMessageBox::about(this, tr("About EnsembleLab"),
                       tr("<b>EnsembleLab %1</b><p>Train and compare deep ensembles.</p>"
                          "<p>Free software under the GNU General Public License, version 3 or later "
                          "(GPL-3.0-or-later). It comes with no warranty.</p>")
                           .arg(ENSEMBLELAB_VERSION));
  });

  QToolBar* toolbar = addToolBar(tr("Run"));
  toolbar->setObjectName("runToolbar");
  toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolbar->addActions({m_start, m_pause, m_stop});
  toolbar->addSeparator();
  toolbar->addActions({m_export->plotAction(), openFolder});
}

void MainWindow::buildLayout() {
  auto* dock = new ExperimentDock(m_form, m_start, this);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  // Put away and brought back (its title bar's close button, or here): in a narrow window
  // the plots and tabs then take its width. The window's saved state keeps the choice.
  QAction* showPanel = dock->toggleViewAction();
  showPanel->setText(tr("&Experiment panel"));
  showPanel->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_E);
  showPanel->setObjectName("experimentPanelAction");
  m_viewMenu->addAction(showPanel);

  m_tabs = new QTabWidget;
  m_tabs->addTab(m_runsView, tr("Runs"));
  m_tabs->addTab(m_breakdown, tr("Ensemble"));
  m_tabs->addTab(m_uncertainty, tr("Uncertainty"));
  m_tabs->addTab(m_sweepPanel, tr("Sweep"));
  // Their names key each tab's height in the settings (TabPaneHeights).
  m_runsView->setObjectName("runsTab");
  m_breakdown->setObjectName("ensembleTab");
  m_uncertainty->setObjectName("uncertaintyTab");
  m_sweepPanel->setObjectName("sweepTab");
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->setObjectName("plotsAndTabs");
  splitter->addWidget(m_plotPanel);
  splitter->addWidget(m_tabs);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setSizes({480, 320});  // until the window is shown and the shown tab sets its own
  setCentralWidget(splitter);
  // Each tab's own height: the user's, or one that gives its plots room (the live plots
  // above scroll). Another Uncertainty page has other controls above its plots.
  auto* heights = new TabPaneHeights(*splitter, *m_tabs, this);
  connect(m_uncertainty->pages(), &QTabWidget::currentChanged, heights, &TabPaneHeights::fit);

  m_status = new RunStatusLine(statusBar());
}

void MainWindow::updateActions() {
  const bool running = m_controller->isRunning();
  // What acts on the selection is offered only for a selection it can act on: exports need
  // a run, Resume one that stopped or failed (a completed run has nothing left to train).
  const int first = m_runsView->firstSelectedRow();
  const bool selected = first >= 0;
  const RunRecord* firstRun = selected ? &m_runs->record(first) : nullptr;
  // ...and has a checkpoint to go on from (a run that failed before its first one offered
  // Resume, which answered with a "Run failed" refusal).
  const bool resumable = firstRun && !firstRun->training && !firstRun->trainingElsewhere && firstRun->summary &&
                         firstRun->summary->status != RunStatus::Completed &&
                         holdsACheckpoint((firstRun->directory + "/checkpoints").toStdString());
  m_export->updateFor(m_runsView->selectedRows());
  for (QAction* action : {m_resumeSelected, m_runsView->resumeAction()}) action->setEnabled(resumable && !running);
  for (QAction* action : {m_evaluateSelected, m_runsView->evaluateAction()}) action->setEnabled(selected && !running);
  m_start->setEnabled(!running && m_form->isValid());
  m_start->setToolTip(m_form->isValid() ? tr("Start training") : tr("Fix the marked fields first"));
  m_pause->setEnabled(running);
  m_stop->setEnabled(running);
  m_form->setEnabled(!running);
  if (!running) {
    const QSignalBlocker blocker(m_pause);
    m_pause->setChecked(false);
  }
}

QString MainWindow::statusText() const { return m_status->text(); }
QTableView* MainWindow::runsView() const { return m_runsView; }
const QVector<MetricPlot*>& MainWindow::plots() const { return m_plotPanel->plots(); }
QTableWidget* MainWindow::memberTable() const { return m_breakdown->memberTable(); }
QCustomPlot* MainWindow::sizePlot() const { return m_breakdown->sizePlot(); }
ReliabilityDiagram* MainWindow::reliabilityDiagram() const { return m_uncertainty->reliability(); }
QSlider* MainWindow::smoothingSlider() const { return m_plotPanel->smoothingSlider(); }
QCheckBox* MainWindow::epochAxisBox() const { return m_plotPanel->epochAxisBox(); }

void MainWindow::startRun() {
  if (m_controller->isRunning() || !m_form->isValid()) return;
  const ExperimentConfig config = m_form->config();
  QSettings settings;
  m_form->save(settings);
  const QString directory =
      m_runsRoot + "/" + QString::fromStdString(RunDirectory::newRunName(modeName(config.mode), modelName(config.model)));
  m_status->preparing(QString::fromStdString(config.dataset));
  m_controller->start(config, directory);
  updateActions();
}

bool MainWindow::refuseWhileASweepJobTrains(const QString& title) {
  // The queue follows one sweep: another taken up now would leave this one's job training
  // with sweep.json saying so for ever.
  if (m_sweepQueue->runningJob() < 0) return false;
  showError(title, tr("The sweep in %1 is training job %2. Cancel it in the Sweep tab first (the job keeps a checkpoint, "
                      "and Run > Open sweep… continues the sweep later), or pause it and let the job finish.")
                       .arg(m_sweepQueue->folder())
                       .arg(m_sweepQueue->runningJob() + 1));
  return true;
}

void MainWindow::startSweep(const Sweep& sweep) {
  if (refuseWhileASweepJobTrains(tr("The sweep could not start"))) return;
  QSettings settings;
  m_form->save(settings);
  const QString folder = m_runsRoot + "/" + QString::fromStdString(RunDirectory::newRunName("sweep", "grid"));
  try {
    m_sweepQueue->start(folder, sweep);
  } catch (...) {
    return showError(tr("The sweep could not start"), inLabels(describeCurrentException()));
  }
  m_tabs->setCurrentWidget(m_sweepPanel);
  updateActions();
}

void MainWindow::openSweep(const QString& folder) {
  if (refuseWhileASweepJobTrains(tr("The sweep could not be opened"))) return;
  try {
    m_sweepQueue->open(folder);
  } catch (...) {
    return showError(tr("The sweep could not be opened"), inLabels(describeCurrentException()));
  }
  m_tabs->setCurrentWidget(m_sweepPanel);
  updateActions();
}

void MainWindow::resumeRun(int row) {
  if (m_controller->isRunning()) return;
  const RunRecord run = m_runs->record(row);  // marked as running, a sorted list may move it
  m_runs->markResuming(row);
  m_status->setText(tr("Resuming %1…").arg(run.name()));
  m_controller->resume(run.directory);
  updateActions();
}

void MainWindow::onRunStarted(const RunStartedEvent& event) {
  // The new run is selected, so the plots and tabs follow it; deselecting it hides it.
  m_runsView->selectRow(m_runs->runStarted(event));
  m_status->runStarted(event);
  showRunsOnPlots();
  // Rare (a class the model cannot learn, a resumed run's metrics.csv restored), and said
  // once, in a message the run goes on behind: the status line moves on with the first step.
  if (!event.notices.empty()) {
    QStringList notices;
    for (const std::string& notice : event.notices) notices << inLabels(notice);
    showError(notices.size() == 1 ? tr("The run started with a warning") : tr("The run started with warnings"),
              notices.join("\n\n"));
  }
}

void MainWindow::onSteps(const QVector<StepEvent>& steps) {
  m_runs->stepsDone(steps);
  m_status->stepsDone(steps.back(), m_controller->isStopping(), m_controller->isPaused());
  m_plotPanel->markChanged();
}

void MainWindow::onEpoch(const EpochEvent& event) {
  showEnsembleBreakdownIfSelected(m_runs->epochDone(event));
  m_plotPanel->markChanged();
  updateActions();  // an epoch's end writes the first checkpoint: it can be exported now
}

void MainWindow::onRunFinished(const RunFinishedEvent& event) {
  showEnsembleBreakdownIfSelected(m_runs->runFinished(event));
  const QString message = inLabels(event.message);
  m_status->runFinished(event, message);
  const QFileInfo run(QString::fromStdString(event.runDirectory));
  const bool sweepJob = m_sweepQueue->hasSweep() && run.absolutePath() == QFileInfo(m_sweepQueue->folder()).absoluteFilePath();
  if (event.status == RunStatus::Failed && sweepJob) {
    // The Sweep tab lists each job's message, and the sweep goes on: one box a failed job had
    // stacked up, naming no job, for the person to click away at the end.
    m_status->setText(tr("Sweep job %1 failed: %2").arg(run.fileName(), message));
  } else if (event.status == RunStatus::Failed) {
    showError(tr("The run failed"), message);
  }
  if (event.status == RunStatus::Failed) showRunsOnPlots();  // its curves as metrics.csv kept them
  m_plotPanel->markChanged();
  updateActions();
}

void MainWindow::showRunsOnPlots() {
  // Exactly the selected runs, the live one among them only while it is selected.
  QVector<const RunRecord*> selected;
  QStringList unreadable;
  for (const int row : m_runsView->selectedRows()) {
    RunRecord& record = m_runs->record(row);
    QString error;
    if (record.ensureCurves(&error)) selected.push_back(&record);
    else unreadable << tr("Cannot read %1: %2").arg(record.name(), error);
  }
  if (!unreadable.isEmpty()) {
    m_unreadableStatus = unreadable.front();
    m_status->setText(m_unreadableStatus);
  } else if (!m_unreadableStatus.isEmpty() && m_status->lastingText() == m_unreadableStatus) {
    m_status->setText(QString());  // said of a run no longer selected
    m_unreadableStatus.clear();
  }
  const PlotSelection shown = plotSelection(selected, m_plotPanel->groupSeeds());
  m_plotPanel->setRuns(shown.runs, shown.groups, unreadable);
  QHash<QString, QColor> colors;
  for (auto it = shown.colorIndex.begin(); it != shown.colorIndex.end(); ++it) colors[it.key()->directory] = runColor(it.value());
  m_runs->setPlotColors(colors);
  // Past runs no longer shown give their curves back (a long session compares many runs;
  // selecting one again reloads its metrics.csv).
  m_runs->releaseCurvesExcept(m_runsView->selectedRows());
}

void MainWindow::showEnsembleBreakdown(int row) {
  if (row < 0 || row >= m_runs->rowCount()) {
    m_breakdown->clear(tr("Select a run in the Runs tab to see its members."));
    m_uncertainty->clearResult();
    return;
  }
  const RunRecord& record = m_runs->record(row);
  if (record.summary && record.summary->evaluation) {
    // A second selected run is compared beside the first.
    const QVector<int> selected = m_runsView->selectedRows();
    const RunRecord* second = selected.size() > 1 && selected.front() == row ? &m_runs->record(selected[1]) : nullptr;
    const bool comparable = second && second->summary && second->summary->evaluation;
    const EvaluationResult* comparison = comparable ? &*second->summary->evaluation : nullptr;
    const QString comparisonLabel = comparable ? second->legendLabel() : QString();
    m_breakdown->setUnshownRuns(std::max(0, int(selected.size()) - kComparedRuns));
    m_breakdown->showResult(*record.summary->evaluation, record.legendLabel());
    m_breakdown->showComparison(comparison, comparisonLabel);
    m_uncertainty->showResult(*record.summary->evaluation, record.legendLabel());
    m_uncertainty->showComparison(comparison, comparisonLabel);
    return;
  }
  const QString why = record.problem.isEmpty()
                         ? tr("%1 has no test evaluation yet: its first epoch has not ended.").arg(record.legendLabel())
                         : tr("Cannot read %1: %2").arg(record.name(), record.problem);
  m_breakdown->clear(why);
  // In the middle of a plot: on two lines, the reason for an unreadable run left to its
  // Status cell (it can be long).
  m_uncertainty->clearResult(record.problem.isEmpty()
                                 ? tr("%1 has no test evaluation yet:\nits first epoch has not ended.").arg(record.legendLabel())
                                 : tr("Cannot read %1:\nthe Status cell in the Runs table says why.").arg(record.name()));
}

void MainWindow::showEnsembleBreakdownIfSelected(int row) {
  if (row >= 0 && row == m_runsView->firstSelectedRow()) showEnsembleBreakdown(row);
}

void MainWindow::offerSelectedRuns() {
  RunChoices runs;
  for (const int row : m_runsView->selectedRows()) {
    const RunRecord& record = m_runs->record(row);
    runs.push_back({record.directory, record.legendLabel(),
                    record.config ? QString::fromStdString(record.config->dataset) : QString()});
  }
  m_uncertainty->setRuns(runs);
}

void MainWindow::refreshRuns() {
  const RunsFolderChanges changes = m_folderWatcher->takeChanges();
  const QStringList reread = m_runs->refresh(m_runsRoot, &changes);
  m_folderWatcher->watch(*m_runs);
  // The count the ready line gives follows the folder while nothing else has been said since
  // (it had stayed at the count the window opened with).
  if (m_status->lastingText() == m_readyText) {
    m_readyText = readyText();
    m_status->updateText(m_readyText);
  }
  // Rows removed from the selection have already said so (selectionChanged); a selected
  // run read again has new curves and numbers to show.
  bool shownChanged = false;
  for (const int row : m_runsView->selectedRows()) shownChanged |= reread.contains(m_runs->record(row).directory);
  if (shownChanged) {
    showRunsOnPlots();
    showEnsembleBreakdown(m_runsView->firstSelectedRow());
    offerSelectedRuns();
  }
  updateActions();
}

void MainWindow::evaluateRun(int row) {
  if (m_controller->isRunning() || row < 0 || row >= m_runs->rowCount()) return;
  const QString dataset = QString::fromStdString(m_form->config().dataset);
  m_status->setText(tr("Evaluating %1 on %2…").arg(m_runs->record(row).name(), dataset));
  m_evaluatedDataset = m_form->config().dataset;
  m_controller->evaluate(m_runs->record(row).directory, dataset);
  updateActions();
}

void MainWindow::onEvaluated(const QString& directory, const EvaluationResult& result, const QString& error) {
  updateActions();
  if (!error.isEmpty()) {
    m_status->setText(tr("Evaluation failed: %1").arg(error));
    return showError(tr("Evaluation failed"), error);
  }
  const int row = m_runs->rowOf(directory);
  const QString label = tr("%1 on %2")
                            .arg(row >= 0 ? m_runs->record(row).legendLabel() : QFileInfo(directory).fileName(),
                                 QString::fromStdString(m_form->config().dataset));
  m_breakdown->showResult(result, label);
  m_breakdown->showComparison(nullptr, {});  // an evaluation on another dataset stands alone
  m_uncertainty->showResult(result, label);
  m_uncertainty->showComparison(nullptr, {});
  m_tabs->setCurrentIndex(1);
  QString evaluated = tr("Evaluated %1 on %2 test images: accuracy %3, NLL %4")
                          .arg(QFileInfo(directory).fileName()).arg(result.samples)
                          .arg(result.ensemble.accuracy, 0, 'f', 4).arg(result.ensemble.nll, 0, 'f', 4);
  // On the run's own dataset, whose files were replaced since it trained: its numbers differ
  // from the Runs list's for that reason alone, which nothing else would tell (the CLI's
  // eval says the same).
  const RunRecord* run = row >= 0 ? &m_runs->record(row) : nullptr;
  if (run && run->config && run->summary && run->summary->evaluation && run->config->dataset == m_evaluatedDataset) {
    const QString note = inLabels(changedTestSetNote(*run->summary->evaluation, result));
    if (!note.isEmpty()) {
      evaluated += tr(". Note: %1").arg(note);
      showError(tr("The run's test set changed"), tr("Note: %1.").arg(note));
    }
  }
  m_status->setText(evaluated);
}

void MainWindow::showError(const QString& title, const QString& message) {
  // Not modal-blocking: training signals keep arriving while the message is shown.
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName("errorMessage");
  box->open();
}

bool MainWindow::confirmStopToQuit() {
  QMessageBox question(QMessageBox::Question, tr("Stop the run?"),
                       tr("A run is in progress. Stop it and quit? It is checkpointed and can be resumed later."),
                       QMessageBox::Yes | QMessageBox::No, this);
  // A run that ends while the question waits leaves nothing to stop: the window closes, as
  // asked (the question had stayed up over the finished run). A sweep's next job keeps it.
  const auto workGoesOn = [this] {
    return m_controller->isRunning() || (m_sweepQueue->hasSweep() && !m_sweepQueue->isPaused() && !m_sweepQueue->isDone());
  };
  QTimer watch;
  connect(&watch, &QTimer::timeout, &question, [&] {
    if (!workGoesOn()) question.done(QMessageBox::Yes);
  });
  watch.start(200);
  return question.exec() == QMessageBox::Yes;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_controller->isRunning()) {
    if (m_confirmClose && !confirmStopToQuit()) {
      event->ignore();
      return;
    }
    m_sweepQueue->pause();  // a sweep's next job must not start as the window closes
    if (m_controller->isRunning()) {
      m_status->setText(tr("Stopping the run…"));
      m_controller->stopAndWait();
    }
  }
  QSettings settings;
  m_form->save(settings);
  settings.setValue("window/geometry", saveGeometry());
  if (normalGeometry().isValid()) settings.setValue("window/size", normalGeometry().size());
  settings.setValue("window/state", saveState());
  event->accept();
}

}  // namespace ensemble::ui
