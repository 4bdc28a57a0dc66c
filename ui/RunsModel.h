// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every run the user has: the one training now and the past ones found in the runs folder
// (the same folders the CLI writes). One row per run with its setup and final numbers.
//
// Past runs are read from their folders. The live run is never read back while it
// trains: its record is kept from the engine's events alone (RunStartedEvent carries the
// config, EpochEvent and RunFinishedEvent the summary.json the engine just wrote), so
// the table, the plots and the ensemble breakdown all show one record.
#include <QAbstractTableModel>
#include <QColor>
#include <QDateTime>
#include <QHash>
#include <QStringList>
#include <QVector>
#include <memory>
#include <optional>

#include "core/config/ExperimentConfig.h"
#include "core/runs/RunSummary.h"
#include "ui/RunCurves.h"
#include "ui/RunsFolderChanges.h"
#include "ui/RunsOrder.h"

namespace ensemble::ui {

/// A run's arithmetic in brief: "fp32", "bf16", "fp32, not reproducible" (a GPU run without
/// deterministic kernels).
QString numericsOf(const ExperimentConfig& config);
/// The sentence behind it: what the precision does and whether the same seed repeats.
QString numericsTip(const ExperimentConfig& config);

/// When a run folder's files last changed, to tell a folder another process writes to (the
/// CLI, a sweep) from one that is as it was read.
struct RunFileStamps {
  qint64 config = -1, summary = -1, metrics = -1;  ///< modification times in ns; -1 absent
  qint64 metricsSize = -1;

  static RunFileStamps of(const QString& directory);
  bool operator==(const RunFileStamps& other) const {
    return config == other.config && summary == other.summary && metrics == other.metrics &&
           metricsSize == other.metricsSize;
  }
  bool operator!=(const RunFileStamps& other) const { return !(*this == other); }
};

struct RunRecord {
  QString directory;
  std::optional<ExperimentConfig> config;  ///< none when config.json is unreadable
  std::optional<RunSummary> summary;       ///< none before the first epoch ends, or when unreadable
  QString problem;                         ///< why config.json or summary.json could not be read
  std::shared_ptr<RunCurves> curves;  ///< loaded on demand for past runs, live for the current
  bool training = false;              ///< true while this window trains it
  bool paused = false;                ///< training, and paused (Run > Pause)
  /// Another process (the CLI, a sweep, another window) holds the run's writer lock: it is
  /// training it now (core/io/RunWriterLock.h). Checked while its summary does not say it ended.
  bool trainingElsewhere = false;
  /// Its seed group ("A", "B", ...) when other runs differ from it only in seed (and at
  /// least two seeds are among them); else empty.
  QString seedGroup;
  /// Another run of its group has the same seed and went further (or as far, and is newer):
  /// the group counts that seed once, by that run.
  bool repeatsSeed = false;
  /// Replicas of the whole group, from the run's start (before its summary says so); 0 unknown.
  int replicas = 0;
  /// The settings that tell it from runs whose names from their settings are the same as its
  /// own ("momentum 0.5", "batch size 64": ui/RunDistinctions.h); they end its display name.
  QStringList distinctions;
  /// Its files as they were when it was read (load(), or the engine's last event for the live run).
  RunFileStamps stamps;
  /// When it started (ui/RunsOrder.h: startOfRun); invalid when nothing says.
  QDateTime started;
  /// Where its folder lies in the unsorted list (ui/RunsOrder.h), kept with the folder:
  /// sorting 10,000 runs asks no file of them.
  ListPlace place;

  QString name() const;
  /// What it trains, in brief: "ensemble of 4, cnn", "single, lenet" (the name alone when
  /// config.json is unreadable).
  QString describe() const;
  /// The run's short name: from its settings, "ensemble ×4 · lr 0.05 · 3k imgs" (model
  /// when not the cnn, seed when not 0), then its distinctions and, for a run that repeats
  /// a seed, when it started; or the folder's name once the user renamed it.
  QString displayName() const;
  /// That name's parts from the settings alone ("ensemble ×4", "lr 0.05", "3k imgs", "seed 2"
  /// unless `withSeed` is false); none where the name is the folder's.
  QStringList settingsNameParts(bool withSeed = true) const;
  /// The setup a seed group of this run shares, for the group's legend: its name's settings
  /// but the seed, and its distinctions ("single · lr 0.1 · momentum 0.5"); describe() where
  /// the name is the folder's.
  QString groupDescription() const;
  /// How legends, captions and the tabs name the run: its display name.
  QString legendLabel() const;
  /// A caption line for exported plots: "DISPLAY NAME (FOLDER): dataset · model · mode ·
  /// devices · numerics · lr · momentum · batch[ · train / test images]" (the folder's name
  /// alone when config.json is unreadable).
  QString captionLine() const;
  /// Nobody here trains it and its summary does not say it ended: a process may be writing it.
  bool mayStillBeWritten() const { return !training && (!summary || summary->status == RunStatus::Running); }
  /// True for an ensemble run (its curves include the ensemble's).
  bool isEnsemble() const { return config && config->mode == TrainingMode::Ensemble; }
  /// Reads config.json and summary.json; what cannot be read is left out and said in `problem`.
  static RunRecord load(const QString& directory);
  /// Loads the curves from metrics.csv if not loaded yet; returns false when unreadable.
  bool ensureCurves(QString* error = nullptr);
};

class RunsModel final : public QAbstractTableModel {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunsModel)

 public:
  enum Column { Name, Status, Started, Mode, Model, Devices, Numerics, Lr, Momentum, WeightDecay, Batch, Epochs, Samples, TestAccuracy, EnsembleNll, SecondsPerEpoch, ImagesPerSecond, SeedGroup, ColumnCount };

  explicit RunsModel(QObject* parent = nullptr);

  /// Replaces the list with the run folders under `root` (in the list's order: newest first
  /// unless sorted by a column), a sweep folder's jobs among them.
  void scan(const QString& root);
  /// Brings the list up to date with the folders under `root` as they are now, row by row so
  /// that the selection stays: new run folders are added where scan() would place them,
  /// vanished ones removed, and runs whose files changed on disk (another process trains
  /// them) read again, their curves dropped to be reloaded. Runs this window trains are
  /// left alone. With `changes` (what the watcher saw), only the runs they name are looked
  /// at, and the folders only where they name something else; without, everything. Returns
  /// the folders of the runs that were read again.
  QStringList refresh(const QString& root, const RunsFolderChanges* changes = nullptr);
  int rowOf(const QString& directory) const;
  RunRecord& record(int row) { return m_runs[row]; }
  const RunRecord& record(int row) const { return m_runs[row]; }
  void remove(int row);
  /// The rows of the seed group `group` ("A"), top to bottom.
  QVector<int> rowsOfSeedGroup(const QString& group) const;
  /// The distinct seeds among them.
  int seedCount(const QString& group) const;
  void setDirectory(int row, const QString& directory);

  /// The row of the run this window trains, or trained last; -1 when there is none.
  int liveRow() const { return rowOf(m_liveDirectory); }
  /// That run's curves (the plots show them while its row is selected), or null.
  std::shared_ptr<const RunCurves> liveCurves() const;
  /// Drops the loaded curves of every past run but `shown` (and the live run's).
  void releaseCurvesExcept(const QVector<int>& shown);
  /// The colour each shown run is drawn in, by folder: its Run cell shows it as a swatch,
  /// so a legend's line can be found in the table. Runs not in it show none.
  void setPlotColors(const QHash<QString, QColor>& byDirectory);
  /// The colour row `row`'s run is drawn in; invalid when it is not shown.
  QColor plotColor(int row) const;

  /// Marks a past run that the window is about to resume as training, before its
  /// checkpoint has loaded: from now on it cannot be renamed or deleted.
  void markResuming(int row);
  /// The live run was paused or unpaused: its Status says so.
  void setPaused(bool paused);

  // The live run, from the engine's events. Each returns the run's row.
  /// Adds the run, or marks a past one (being resumed) as training. A resumed run's
  /// curves so far are its metrics.csv, which the engine has just cut back to the
  /// checkpoint it continues from.
  int runStarted(const RunStartedEvent& event);
  void stepsDone(const QVector<StepEvent>& steps);
  int epochDone(const EpochEvent& event);
  /// An evaluation between epoch ends: its points join the live run's test curves.
  void evaluationDone(const EvaluationEvent& event);
  /// -1 when the run never started (nothing was written for it).
  int runFinished(const RunFinishedEvent& event);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  /// Sorts the list by `column` (ui/RunsOrder.h), or back to the folders' order for -1; it
  /// stays sorted as runs are added and their numbers change. Selections follow their runs.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
  int sortColumn() const { return m_sortColumn; }

 private:
  void rowChanged(int row);
  /// Puts the rows back in the list's order after runs were added or changed; inside a reset
  /// of the model, without telling the views.
  void keepOrder(bool insideReset = false);
  /// keepOrder() where a column sorts the list: a run's numbers changed, not its folder.
  void keepSorted();
  /// What `column` sorts row `row` by.
  QVariant sortValue(int row, int column) const;
  /// Gives every run that shares its settings but for the seed with another a group letter,
  /// and every run its distinctions; then relabels the loaded curves.
  void updateSeedGroups();
  /// Sets each run's distinctions from the runs whose settings' names equal its own.
  void updateDistinctions();

  QVector<RunRecord> m_runs;
  QHash<QString, QColor> m_plotColors;
  QString m_liveDirectory;
  int m_sortColumn = -1;  ///< -1: the folders' order
  Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};

}  // namespace ensemble::ui
