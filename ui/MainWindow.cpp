#include "ui/MainWindow.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QGridLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSlider>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/common/TextFormat.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunExport.h"
#include "core/metrics/EvaluationJson.h"
#include "ui/EnsembleBreakdownView.h"
#include "ui/ExperimentForm.h"
#include "ui/MetricPlot.h"
#include "ui/PlotExport.h"
#include "ui/PlotPanel.h"
#include "ui/RunController.h"
#include "ui/RunFolderActions.h"
#include "ui/RunCurves.h"
#include "ui/RunsModel.h"
#include "ui/EngineMessage.h"

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
      m_runs(new RunsModel(this)) {
  setWindowTitle(tr("EnsembleLab"));
  setWindowIcon(QIcon(":/icons/ensemble-lab.svg"));
  m_folderActions = new RunFolderActions(this, *m_runs, [this](const QString& directory) {
    return directory == m_liveDirectory && m_controller->isRunning();
  });
  connect(m_folderActions, &RunFolderActions::runsChanged, this, &MainWindow::showRunsOnPlots);
  connect(m_folderActions, &RunFolderActions::failed, this, &MainWindow::showError);
  buildActions();
  buildLayout();
  m_runs->scan(m_runsRoot);

  connect(m_form, &ExperimentForm::validityChanged, this, &MainWindow::updateActions);
  connect(m_controller, &RunController::runStarted, this, &MainWindow::onRunStarted);
  connect(m_controller, &RunController::stepsReady, this, &MainWindow::onSteps);
  connect(m_controller, &RunController::epochFinished, this, &MainWindow::onEpoch);
  connect(m_controller, &RunController::runFinished, this, &MainWindow::onRunFinished);
  connect(m_controller, &RunController::evaluationFinished, this,
          [this](const QString& directory, const EvaluationResult& result, const QString& error) {
            updateActions();
            if (!error.isEmpty()) {
              m_status->setText(tr("Evaluation failed: %1").arg(error));
              return showError(tr("Evaluation failed"), error);
            }
            m_breakdown->showResult(result);
            m_tabs->setCurrentIndex(1);
            m_status->setText(tr("Evaluated %1 on %2 test images: accuracy %3, NLL %4")
                                  .arg(QFileInfo(directory).fileName()).arg(result.samples)
                                  .arg(result.ensemble.accuracy, 0, 'f', 4).arg(result.ensemble.nll, 0, 'f', 4));
          });
  connect(m_controller, &RunController::pausedChanged, this, [this](bool paused) {
    m_status->setText(paused ? tr("Paused") : tr("Training…"));
    updateActions();
  });

  QSettings settings;
  m_form->load(settings);
  restoreGeometry(settings.value("window/geometry").toByteArray());
  restoreState(settings.value("window/state").toByteArray());
  if (!settings.contains("window/geometry")) resize(1400, 900);
  updateActions();
  m_status->setText(tr("Ready. %1 past run(s) in %2").arg(m_runs->rowCount()).arg(m_runsRoot));
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
  m_start = new QAction(themed("media-playback-start", ":/icons/start.svg"), tr("&Start"), this);
  m_start->setShortcut(Qt::CTRL | Qt::Key_R);
  m_pause = new QAction(themed("media-playback-pause", ":/icons/pause.svg"), tr("&Pause"), this);
  m_pause->setCheckable(true);
  m_stop = new QAction(themed("media-playback-stop", ":/icons/stop.svg"), tr("S&top"), this);
  auto* exportPlot = new QAction(themed("document-save-as", ":/icons/export.svg"), tr("Export &plot…"), this);
  auto* exportMetrics = new QAction(tr("Export &metrics…"), this);
  auto* exportCheckpoint = new QAction(tr("Export &checkpoint…"), this);
  auto* openFolder = new QAction(themed("document-open", ":/icons/open.svg"), tr("&Open dataset folder…"), this);
  auto* resume = new QAction(tr("&Resume selected run"), this);
  resume->setObjectName("resumeAction");
  auto* evaluate = new QAction(tr("&Evaluate selected run on the chosen dataset"), this);
  auto* quit = new QAction(tr("&Quit"), this);
  quit->setShortcut(QKeySequence::Quit);

  connect(m_start, &QAction::triggered, this, &MainWindow::startRun);
  connect(m_pause, &QAction::toggled, this, [this](bool paused) {
    if (paused) m_controller->pause();
    else m_controller->unpause();
  });
  connect(m_stop, &QAction::triggered, m_controller, &RunController::stop);
  connect(exportPlot, &QAction::triggered, this, &MainWindow::exportPlotInteractive);
  connect(exportMetrics, &QAction::triggered, this, &MainWindow::exportMetricsInteractive);
  connect(exportCheckpoint, &QAction::triggered, this, &MainWindow::exportCheckpointInteractive);
  connect(openFolder, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Open an MNIST-format dataset folder"));
    if (!folder.isEmpty()) m_form->addDatasetFolder(folder);
  });
  connect(resume, &QAction::triggered, this, &MainWindow::resumeSelected);
  connect(evaluate, &QAction::triggered, this, &MainWindow::evaluateSelected);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(openFolder);
  file->addSeparator();
  file->addActions({exportPlot, exportMetrics, exportCheckpoint});
  file->addSeparator();
  file->addAction(quit);
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addActions({m_start, m_pause, m_stop});
  run->addSeparator();
  run->addActions({resume, evaluate});
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About EnsembleLab"), this, [this] {
    QMessageBox::about(this, tr("About EnsembleLab"),
                       tr("<b>EnsembleLab %1</b><p>Train and compare deep ensembles.</p>").arg(ENSEMBLELAB_VERSION));
  });

  QToolBar* toolbar = addToolBar(tr("Run"));
  toolbar->setObjectName("runToolbar");
  toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolbar->addActions({m_start, m_pause, m_stop});
  toolbar->addSeparator();
  toolbar->addActions({exportPlot, openFolder});
}

void MainWindow::buildLayout() {
  // Setup dock.
  auto* setupPanel = new QWidget;
  auto* setupLayout = new QVBoxLayout(setupPanel);
  setupLayout->addWidget(m_form);
  auto* startButton = new QPushButton(m_start->icon(), tr("Start training"));
  connect(startButton, &QPushButton::clicked, m_start, &QAction::trigger);
  connect(m_start, &QAction::changed, startButton, [this, startButton] { startButton->setEnabled(m_start->isEnabled()); });
  setupLayout->addWidget(startButton);
  setupLayout->addStretch();
  auto* scroll = new QScrollArea;
  scroll->setWidget(setupPanel);
  scroll->setWidgetResizable(true);
  auto* dock = new QDockWidget(tr("Experiment"), this);
  dock->setObjectName("experimentDock");
  dock->setWidget(scroll);
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  m_plotPanel = new PlotPanel;

  // Runs and the ensemble's breakdown.
  m_runsView = new QTableView;
  m_runsView->setModel(m_runs);
  m_runsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_runsView->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_runsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_runsView->horizontalHeader()->setStretchLastSection(true);
  m_runsView->verticalHeader()->hide();
  m_runsView->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* rename = new QAction(tr("Rename…"), m_runsView);
  auto* remove = new QAction(tr("Delete…"), m_runsView);
  auto* resume = new QAction(tr("Resume"), m_runsView);
  auto* evaluate = new QAction(tr("Evaluate on the chosen dataset"), m_runsView);
  connect(evaluate, &QAction::triggered, this, &MainWindow::evaluateSelected);
  connect(rename, &QAction::triggered, this, &MainWindow::renameSelected);
  connect(remove, &QAction::triggered, this, &MainWindow::deleteSelected);
  connect(resume, &QAction::triggered, this, &MainWindow::resumeSelected);
  m_runsView->addActions({resume, evaluate, rename, remove});
  connect(m_runsView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    showRunsOnPlots();
    const QVector<int> rows = selectedRows();
    if (!rows.isEmpty()) showEnsembleBreakdown(rows.front());
  });

  m_breakdown = new EnsembleBreakdownView;

  m_tabs = new QTabWidget;
  m_tabs->addTab(m_runsView, tr("Runs"));
  m_tabs->addTab(m_breakdown, tr("Ensemble"));
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(m_plotPanel);
  splitter->addWidget(m_tabs);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({700, 260});
  setCentralWidget(splitter);

  m_progress = new QProgressBar;
  m_progress->setMaximumWidth(320);
  m_progress->setFormat(tr("%p%"));
  m_status = new QLabel;
  statusBar()->addWidget(m_status, 1);
  statusBar()->addPermanentWidget(m_progress);
}

void MainWindow::updateActions() {
  const bool running = m_controller->isRunning();
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
const QVector<MetricPlot*>& MainWindow::plots() const { return m_plotPanel->plots(); }
QTableWidget* MainWindow::memberTable() const { return m_breakdown->memberTable(); }
QCustomPlot* MainWindow::sizePlot() const { return m_breakdown->sizePlot(); }
QSlider* MainWindow::smoothingSlider() const { return m_plotPanel->smoothingSlider(); }
QCheckBox* MainWindow::epochAxisBox() const { return m_plotPanel->epochAxisBox(); }

void MainWindow::startRun() {
  if (m_controller->isRunning() || !m_form->isValid()) return;
  const ExperimentConfig config = m_form->config();
  QSettings settings;
  m_form->save(settings);
  m_liveDirectory = m_runsRoot + "/" + QString::fromStdString(RunDirectory::newRunName(modeName(config.mode), modelName(config.model)));
  m_liveCurves = std::make_shared<RunCurves>(QFileInfo(m_liveDirectory).fileName());
  m_liveEnsemble = config.mode == TrainingMode::Ensemble;
  m_status->setText(tr("Preparing %1 (loading data, building replicas)…").arg(QString::fromStdString(config.dataset)));
  m_progress->setValue(0);
  m_controller->start(config, m_liveDirectory);
  updateActions();
  showRunsOnPlots();
}

void MainWindow::resumeSelected() {
  const QVector<int> rows = selectedRows();
  if (rows.isEmpty() || m_controller->isRunning()) return;
  RunRecord& record = m_runs->record(rows.front());
  m_liveDirectory = record.directory;
  m_liveCurves = std::make_shared<RunCurves>(record.name());  // reloaded when the run starts
  m_liveEnsemble = record.config.value("mode").toString() == "ensemble";
  m_status->setText(tr("Resuming %1…").arg(record.name()));
  m_controller->resume(m_liveDirectory);
  updateActions();
  showRunsOnPlots();
}

void MainWindow::onRunStarted(const RunStartedEvent& event) {
  RunRecord record = RunRecord::load(QString::fromStdString(event.runDirectory));
  if (event.startStep > 0 && record.ensureCurves()) {
    // Resuming: the engine has just cut metrics.csv back to the checkpoint, so the curves
    // so far are exactly its rows; new points append to them.
    m_liveCurves = record.curves;
  }
  record.curves = m_liveCurves;
  record.training = true;
  m_runs->upsert(record);
  m_progress->setRange(0, int(event.epochs * event.stepsPerEpoch));
  m_status->setText(tr("Training %1 %2 on %3…").arg(QString::fromStdString(event.mode), QString::fromStdString(event.model), QString::fromStdString(event.devices)));
  showRunsOnPlots();
}

void MainWindow::onSteps(const QVector<StepEvent>& steps) {
  for (const StepEvent& step : steps) m_liveCurves->addStep(step, m_liveEnsemble);
  const StepEvent& last = steps.back();
  m_progress->setValue(int(last.globalStep));
  if (!m_controller->isPaused()) {
    m_status->setText(tr("Epoch %1/%2 · step %3/%4 · %5 img/s · ETA %6")
                          .arg(last.epoch).arg(last.epochs).arg(last.stepInEpoch).arg(last.stepsPerEpoch)
                          .arg(last.imagesPerSecond, 0, 'f', 0).arg(QString::fromStdString(formatDuration(last.etaSeconds))));
  }
  m_plotPanel->markChanged();
}

void MainWindow::onEpoch(const EpochEvent& event) {
  m_liveCurves->addEpoch(event, m_liveEnsemble);
  m_plotPanel->markChanged();
  RunRecord record = RunRecord::load(m_liveDirectory);
  record.training = true;
  const int row = m_runs->upsert(record);
  showEnsembleBreakdown(row);
}

void MainWindow::onRunFinished(const RunFinishedEvent& event) {
  const QString directory = QString::fromStdString(event.runDirectory);
  if (QFileInfo::exists(directory + "/config.json")) {
    RunRecord record = RunRecord::load(directory);
    record.curves = m_liveCurves;
    showEnsembleBreakdown(m_runs->upsert(record));
  }
  const QString message = inLabels(event.message);
  switch (event.status) {
    case RunStatus::Completed: m_status->setText(tr("Run finished: %1").arg(QFileInfo(directory).fileName())); break;
    case RunStatus::Stopped: m_status->setText(tr("Stopped. %1").arg(message)); break;
    default:
      m_status->setText(tr("Run failed: %1").arg(message));
      showError(tr("The run failed"), message);
  }
  m_plotPanel->markChanged();
  updateActions();
}

QVector<int> MainWindow::selectedRows() const {
  QVector<int> rows;
  for (const QModelIndex& index : m_runsView->selectionModel()->selectedRows()) rows.push_back(index.row());
  std::sort(rows.begin(), rows.end());
  return rows;
}

void MainWindow::showRunsOnPlots() {
  // The live run first, then every selected run for comparison.
  QVector<std::shared_ptr<const RunCurves>> runs;
  if (m_liveCurves) runs.push_back(m_liveCurves);
  for (const int row : selectedRows()) {
    RunRecord& record = m_runs->record(row);
    QString error;
    if (!record.ensureCurves(&error)) {
      m_status->setText(tr("Cannot show %1: %2").arg(record.name(), error));
      continue;
    }
    if (record.curves != m_liveCurves) runs.push_back(record.curves);
  }
  m_plotPanel->setRuns(runs);
}

void MainWindow::showEnsembleBreakdown(int row) {
  if (row < 0 || row >= m_runs->rowCount()) return;
  const QJsonObject& summary = m_runs->record(row).summary;
  if (!summary.value("ensemble").isObject()) return;  // no epoch evaluated yet
  try {
    m_breakdown->showResult(evaluationFromJson(nlohmann::json::parse(QJsonDocument(summary).toJson().toStdString()),
                                     m_runs->record(row).directory.toStdString()));
  } catch (const std::exception& e) {
    m_status->setText(tr("Cannot read the summary of %1: %2").arg(m_runs->record(row).name(), inLabels(e.what())));
  }
}

void MainWindow::evaluateRun(int row) {
  if (m_controller->isRunning() || row < 0 || row >= m_runs->rowCount()) return;
  const QString dataset = QString::fromStdString(m_form->config().dataset);
  m_status->setText(tr("Evaluating %1 on %2…").arg(m_runs->record(row).name(), dataset));
  m_controller->evaluate(m_runs->record(row).directory, dataset);
  updateActions();
}

void MainWindow::evaluateSelected() {
  const QVector<int> rows = selectedRows();
  if (rows.isEmpty()) return showError(tr("Evaluate"), tr("Select a run in the Runs list first."));
  evaluateRun(rows.front());
}

QString MainWindow::exportMetrics(int row, const QString& path) {
  try {
    exportRunMetrics(m_runs->record(row).directory.toStdString(), path.toStdString());  // the format: core/io/RunExport.h
    return {};
  } catch (const std::exception& e) {
    return inLabels(e.what());
  }
}

QString MainWindow::exportCheckpoint(int row, const QString& folder) {
  try {
    exportLatestCheckpoint(m_runs->record(row).directory.toStdString(), folder.toStdString());
    return {};
  } catch (const std::exception& e) {
    return inLabels(e.what());
  }
}

void MainWindow::exportPlotInteractive() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export plot"), m_plotPanel->activePlot()->title() + ".png",
                                                    tr("PNG image (*.png);;PDF document (*.pdf);;SVG image (*.svg)"));
  if (path.isEmpty()) return;
  const QString error = exportPlot(m_plotPanel->activePlot()->customPlot(), path);
  if (!error.isEmpty()) showError(tr("Export failed"), error);
  else m_status->setText(tr("Saved %1").arg(path));
}

void MainWindow::exportMetricsInteractive() {
  const QVector<int> rows = selectedRows();
  if (rows.isEmpty()) return showError(tr("Export metrics"), tr("Select a run in the Runs list first."));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export metrics"), m_runs->record(rows.front()).name() + ".csv",
                                                    tr("CSV (*.csv);;JSON (*.json)"));
  if (path.isEmpty()) return;
  const QString error = exportMetrics(rows.front(), path);
  if (!error.isEmpty()) showError(tr("Export failed"), error);
  else m_status->setText(tr("Saved %1").arg(path));
}

void MainWindow::exportCheckpointInteractive() {
  const QVector<int> rows = selectedRows();
  if (rows.isEmpty()) return showError(tr("Export checkpoint"), tr("Select a run in the Runs list first."));
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Save the checkpoint into"));
  if (folder.isEmpty()) return;
  const QString error = exportCheckpoint(rows.front(), folder);
  if (!error.isEmpty()) showError(tr("Export failed"), error);
  else m_status->setText(tr("Checkpoint saved into %1").arg(folder));
}

void MainWindow::renameSelected() {
  const QVector<int> rows = selectedRows();
  if (!rows.isEmpty()) m_folderActions->rename(rows.front());
}

void MainWindow::deleteSelected() {
  const QVector<int> rows = selectedRows();
  if (!rows.isEmpty()) m_folderActions->remove(rows);
}

void MainWindow::showError(const QString& title, const QString& message) {
  // Not modal-blocking: training signals keep arriving while the message is shown.
  auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName("errorMessage");
  box->open();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_controller->isRunning()) {
    if (m_confirmClose &&
        QMessageBox::question(this, tr("Stop the run?"),
                              tr("A run is in progress. Stop it and quit? It is checkpointed and can be resumed later.")) != QMessageBox::Yes) {
      event->ignore();
      return;
    }
    m_status->setText(tr("Stopping the run…"));
    m_controller->stopAndWait();
  }
  QSettings settings;
  m_form->save(settings);
  settings.setValue("window/geometry", saveGeometry());
  settings.setValue("window/state", saveState());
  event->accept();
}

}  // namespace ensemble::ui
