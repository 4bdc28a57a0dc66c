// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The EnsembleLab window: experiment setup on the left, live plots in the middle, the run
// list and the ensemble's breakdown below. Training runs in RunController's thread; the
// window only ever receives queued signals and repaints plots from a timer.
#include <QMainWindow>
#include <QVector>
#include <memory>
#include <string>

#include "ui/EngineMetaTypes.h"

class QAction;
class QMenu;
class QCheckBox;
class QCustomPlot;
class QLabel;
class QSlider;
class QTableView;
class QTableWidget;
class QTabWidget;

namespace ensemble {
struct Sweep;
}

namespace ensemble::ui {

class EnsembleBreakdownView;
class ExperimentForm;
class ExportActions;
class MetricPlot;
class PlotPanel;
class ReliabilityDiagram;
class RunController;
class UncertaintyView;
class RunListView;
class RunStatusLine;
class RunsFolderWatcher;
class RunsModel;
class SweepPanel;
class SweepQueue;

class MainWindow final : public QMainWindow {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(MainWindow)

 public:
  /// `runsRoot` is where runs are written and reloaded from (the CLI's default when empty).
  explicit MainWindow(const QString& runsRoot = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // For tests and scripted use.
  ExperimentForm* form() const { return m_form; }
  RunController* controller() const { return m_controller; }
  RunsModel* runsModel() const { return m_runs; }
  QTableView* runsView() const;
  const QVector<MetricPlot*>& plots() const;
  QAction* startAction() const { return m_start; }
  QAction* pauseAction() const { return m_pause; }
  QAction* stopAction() const { return m_stop; }
  QTableWidget* memberTable() const;
  QCustomPlot* sizePlot() const;
  ReliabilityDiagram* reliabilityDiagram() const;
  UncertaintyView* uncertaintyView() const { return m_uncertainty; }
  EnsembleBreakdownView* ensembleBreakdown() const { return m_breakdown; }
  QTabWidget* tabs() const { return m_tabs; }
  QSlider* smoothingSlider() const;
  QCheckBox* epochAxisBox() const;
  QString statusText() const;
  /// When false, closing during a run stops it without asking (tests).
  void setConfirmClose(bool confirm) { m_confirmClose = confirm; }

  /// Starts a run with the form's setup (what Start does).
  void startRun();
  /// Evaluates the run in `row` on the form's dataset, in the worker thread.
  void evaluateRun(int row);
  /// Starts `sweep` (of the form's settings) in a new folder of the runs folder, and shows
  /// the Sweep tab (what Run > New sweep… does once its dialog is accepted).
  void startSweep(const Sweep& sweep);
  /// Goes on with the sweep in `folder` (Run > Open sweep…).
  void openSweep(const QString& folder);
  SweepQueue* sweepQueue() const { return m_sweepQueue; }
  SweepPanel* sweepPanel() const { return m_sweepPanel; }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  /// "Ready. N runs in DIR", for the runs listed now.
  QString readyText() const;
  /// Asks whether to stop the run and quit; true without an answer once the run has ended.
  bool confirmStopToQuit();
  void buildActions();
  void buildLayout();
  void updateActions();
  void showRunsOnPlots();
  void showEnsembleBreakdown(int row);
  /// The live run's new evaluation reaches the tabs only when it is the run they show.
  void showEnsembleBreakdownIfSelected(int row);
  /// Tells the Uncertainty view which runs are selected.
  void offerSelectedRuns();
  /// The runs folder changed on disk: the list catches up, and what shows a run that was
  /// read again shows it as it is now.
  void refreshRuns();
  void resumeRun(int row);
  void onRunStarted(const ensemble::RunStartedEvent& event);
  void onSteps(const QVector<ensemble::StepEvent>& steps);
  void onEpoch(const ensemble::EpochEvent& event);
  void onRunFinished(const ensemble::RunFinishedEvent& event);
  void onEvaluated(const QString& directory, const ensemble::EvaluationResult& result, const QString& error);
  void showError(const QString& title, const QString& message);
  /// Says why, and returns true, while a job of the queue's sweep trains.
  bool refuseWhileASweepJobTrains(const QString& title);

  QString m_runsRoot;
  ExperimentForm* m_form;
  RunController* m_controller;
  RunsModel* m_runs;
  RunListView* m_runsView;
  PlotPanel* m_plotPanel;
  EnsembleBreakdownView* m_breakdown;
  QAction* m_resumeSelected = nullptr;
  QMenu* m_viewMenu = nullptr;  // filled by buildLayout, which makes what it shows
  QAction* m_evaluateSelected = nullptr;
  UncertaintyView* m_uncertainty;
  ExportActions* m_export;
  SweepQueue* m_sweepQueue;
  SweepPanel* m_sweepPanel;
  RunsFolderWatcher* m_folderWatcher;
  RunStatusLine* m_status = nullptr;
  /// What the status line said of a selected run that could not be read: cleared once no such
  /// run is selected (it outlived the selection).
  QString m_unreadableStatus;
  QTabWidget* m_tabs = nullptr;
  QAction* m_start = nullptr;
  QAction* m_pause = nullptr;
  QAction* m_stop = nullptr;
  bool m_confirmClose = true;
  QString m_readyText;  ///< the status line's "Ready. N runs in DIR", as last shown
  std::string m_evaluatedDataset;  ///< the dataset spec of the evaluation under way, or the last
};

}  // namespace ensemble::ui
