// SPDX-License-Identifier: GPL-3.0-or-later
// The run list's records: the live run kept from the engine's events alone (never read
// back from its folder while it trains), past runs read from theirs, and a damaged
// folder shown as unreadable with the reason.
#include <QAction>
#include <QFile>
#include <QHeaderView>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "ui/PlotSelection.h"
#include "ui/RunListView.h"
#include "ui/RunDistinctions.h"
#include "ui/RunsModel.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

QString cell(const RunsModel& model, int row, RunsModel::Column column, int role = Qt::DisplayRole) {
  return model.data(model.index(row, column), role).toString();
}

RunSummary summaryAfterEpoch(int64_t epoch, double accuracy) {
  RunSummary summary;
  summary.setup.mode = TrainingMode::Ensemble;
  summary.epochsCompleted = epoch;
  summary.stepsCompleted = 10 * epoch;
  summary.secondsPerEpoch = 2.5;
  summary.imagesPerSecond = 1234;
  EvaluationResult evaluation;
  evaluation.members = {{0.9, accuracy - 0.1}, {0.8, accuracy - 0.05}};
  evaluation.ensemble.accuracy = accuracy;
  evaluation.ensemble.nll = 0.5;
  summary.evaluation = evaluation;
  return summary;
}

StepEvent loggedStep(int64_t step) {
  StepEvent event;
  event.globalStep = step;
  event.logged = true;
  event.members = {{1.0, 0.5}, {1.2, 0.4}};
  event.ensemble = {0.9, 0.55};
  return event;
}

bool writeText(const QString& path, const QByteArray& text) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
}

/// A past single-mode run's folder under `root` with its config.json (batch `batchSize`);
/// empty when it could not be written.
QString singleRunFolder(const QTemporaryDir& root, int batchSize = 64) {
  const QString run = root.filePath("20260101-000000000-single-cnn");
  ExperimentConfig config;
  config.mode = TrainingMode::Single;
  config.batchSize = batchSize;
  const bool made = QDir().mkpath(run) && writeText(run + "/config.json", QByteArray::fromStdString(config.toJson().dump()));
  return made ? run : QString();
}

/// A past run's folder `name` under `root` holding `config` as its config.json; empty when it
/// could not be written.
QString runFolder(const QTemporaryDir& root, const QString& name, const ExperimentConfig& config) {
  const QString run = root.filePath(name);
  const bool made = QDir().mkpath(run) && writeText(run + "/config.json", QByteArray::fromStdString(config.toJson().dump()));
  return made ? run : QString();
}

/// Two past runs of one setup under `root`, a day apart (older first); empty when not written.
QStringList twoRunFolders(const QTemporaryDir& root, const ExperimentConfig& config) {
  const QString older = runFolder(root, "20260101-000000000-single-cnn", config);
  const QString newer = runFolder(root, "20260102-000000000-single-cnn", config);
  return older.isEmpty() || newer.isEmpty() ? QStringList() : QStringList{older, newer};
}

}  // namespace

class TestRunsModel final : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // the list's sort order is kept in the settings
    QSettings().clear();
  }

  // The folder of this run does not exist: every number the row shows came from an event.
  void liveRunIsKeptFromTheEngineEvents() {
    QTemporaryDir root;
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(model.rowCount(), 0);
    RunStartedEvent started;
    started.runDirectory = root.filePath("20260101-000000000-ensemble-cnn").toStdString();
    started.config.learningRate = 0.05;
    started.config.weightDecay = 5e-4;
    started.config.epochs = 3;
    QCOMPARE(model.runStarted(started), 0);
    QCOMPARE(model.liveRow(), 0);
    QCOMPARE(cell(model, 0, RunsModel::Status), QString("running"));
    model.setPaused(true);  // Run > Pause: the table says so (it still said "running")
    QCOMPARE(cell(model, 0, RunsModel::Status), QString("paused"));
    model.setPaused(false);
    QCOMPARE(cell(model, 0, RunsModel::Status), QString("running"));
    QCOMPARE(cell(model, 0, RunsModel::Lr), QString("0.05"));
    QCOMPARE(model.data(model.index(0, RunsModel::WeightDecay), Qt::DisplayRole).toDouble(), 5e-4);  // a number: it sorts as one
    QCOMPARE(cell(model, 0, RunsModel::Epochs), QString("0/3"));

    model.stepsDone({loggedStep(4), loggedStep(8)});
    QCOMPARE(model.liveCurves()->series(Metric::TrainLoss, RunCurves::kEnsemble).y, QVector<double>({0.9, 0.9}));

    EpochEvent epoch;
    epoch.epoch = 1;
    epoch.globalStep = 10;
    epoch.summary = summaryAfterEpoch(1, 0.75);
    epoch.test = *epoch.summary.evaluation;
    QCOMPARE(model.epochDone(epoch), 0);
    QCOMPARE(cell(model, 0, RunsModel::Epochs), QString("1/3"));
    QCOMPARE(cell(model, 0, RunsModel::TestAccuracy), QString("0.7500"));
    QCOMPARE(cell(model, 0, RunsModel::ImagesPerSecond), QString("1234"));
    // What the number counts, said where it is read (an ensemble's is summed over its members).
    QVERIFY(model.headerData(RunsModel::ImagesPerSecond, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("summed over an ensemble's members"));
    QCOMPARE(model.liveCurves()->series(Metric::TestAccuracy, RunCurves::kEnsemble).y, QVector<double>({0.75}));

    RunFinishedEvent finished;
    finished.runDirectory = started.runDirectory;
    finished.status = RunStatus::Completed;
    finished.summary = summaryAfterEpoch(3, 0.81);
    finished.summary->status = RunStatus::Completed;
    QCOMPARE(model.runFinished(finished), 0);
    QCOMPARE(cell(model, 0, RunsModel::Status), QString("completed"));
    QCOMPARE(cell(model, 0, RunsModel::TestAccuracy), QString("0.8100"));
    QVERIFY(!model.record(0).training);
    QVERIFY(model.liveCurves());  // the finished run keeps its curves
  }

  void aRunThatNeverStartedAddsNoRow() {
    QTemporaryDir root;
    RunsModel model;
    model.scan(root.path());
    RunFinishedEvent failed;
    failed.status = RunStatus::Failed;
    failed.runDirectory = root.filePath("never-started").toStdString();
    QCOMPARE(model.runFinished(failed), -1);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.liveRow(), -1);
  }

  void renamingTheLiveRunKeepsItLive() {
    QTemporaryDir root;
    RunsModel model;
    model.scan(root.path());
    RunStartedEvent started;
    started.runDirectory = root.filePath("a").toStdString();
    model.runStarted(started);
    model.stepsDone({loggedStep(1)});
    model.setDirectory(0, root.filePath("b"));
    QCOMPARE(model.liveRow(), 0);
    QCOMPARE(model.liveCurves()->label(), QString("b"));
    model.stepsDone({loggedStep(2)});  // still reaches the renamed run's curves
    QCOMPARE(model.liveCurves()->series(Metric::TrainLoss, 0).x, QVector<double>({1, 2}));
  }

  void pastRunsAreReadFromTheirFolders() {
    QTemporaryDir root;
    const QString run = singleRunFolder(root, 32);
    QVERIFY(!run.isEmpty());
    RunSummary summary = summaryAfterEpoch(2, 0.66);
    summary.status = RunStatus::Stopped;
    summary.message = "stopped at step 20";
    QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(cell(model, 0, RunsModel::Status), QString("stopped"));
    QCOMPARE(cell(model, 0, RunsModel::Mode), QString("single"));
    QCOMPARE(cell(model, 0, RunsModel::Batch), QString("32"));
    QCOMPARE(cell(model, 0, RunsModel::TestAccuracy), QString("0.6600"));
    QCOMPARE(cell(model, 0, RunsModel::Status, Qt::ToolTipRole), QString("stopped at step 20"));
  }

  // Another process adds, trains on and deletes runs while the window is open: refresh()
  // catches the list up row by row, so the user's selection stays on the run it was on.
  void refreshFollowsTheFolderAndKeepsTheSelection() {
    QTemporaryDir root;
    ExperimentConfig config;
    const QStringList runs = twoRunFolders(root, config);
    QVERIFY(runs.size() == 2);
    const QString older = runs[0], newer = runs[1];
    RunsModel model;
    model.scan(root.path());
    QItemSelectionModel selection(&model);
    selection.select(model.index(model.rowOf(older), 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    RunStartedEvent started;  // this window's own run, whose folder does not exist (yet)
    started.runDirectory = root.filePath("20260100-000000000-ensemble-cnn").toStdString();
    model.runStarted(started);
    QCOMPARE(model.rowCount(), 3);

    // Unchanged on disk: nothing is read again.
    QCOMPARE(model.refresh(root.path()), QStringList());
    // A new run (the CLI's) appears where scan() puts it: the newest first.
    const QString newest = runFolder(root, "20260103-000000000-single-cnn", config);
    QVERIFY(!newest.isEmpty());
    QCOMPARE(model.refresh(root.path()), QStringList());
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.rowOf(newest), 0);
    // One between two listed runs goes between them.
    const QString between = runFolder(root, "20260101-120000000-single-cnn", config);
    QVERIFY(!between.isEmpty());
    model.refresh(root.path());
    QCOMPARE(model.rowOf(between), model.rowOf(older) - 1);
    QCOMPARE(model.rowOf(newer), model.rowOf(between) - 1);
    QVERIFY(QDir(between).removeRecursively());
    model.refresh(root.path());
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(selection.selectedRows().size(), 1);
    QCOMPARE(selection.selectedRows().front().row(), model.rowOf(older));
    // The selected run, trained on elsewhere: its epoch's summary is read, its curves dropped.
    RunSummary summary = summaryAfterEpoch(1, 0.7);
    QVERIFY(writeText(older + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
    QCOMPARE(model.refresh(root.path()), QStringList({older}));
    QCOMPARE(cell(model, model.rowOf(older), RunsModel::TestAccuracy), QString("0.7000"));
    // A run's setup rewritten (another seed): read again, and the seed groups follow it (a
    // refresh that changes no row or setup leaves them as they were).
    QVERIFY(model.record(model.rowOf(newest)).seedGroup.isEmpty());  // one setup, one seed: no group
    ExperimentConfig reseeded = config;
    reseeded.seed = 7;
    QVERIFY(writeText(newest + "/config.json", QByteArray::fromStdString(reseeded.toJson().dump())));
    QFile rewritten(newest + "/config.json");  // later than its first write, as a real rewrite is
    QVERIFY(rewritten.open(QIODevice::ReadWrite) &&
            rewritten.setFileTime(QDateTime::currentDateTime().addSecs(5), QFileDevice::FileModificationTime));
    rewritten.close();
    QCOMPARE(model.refresh(root.path()), QStringList({newest}));
    const QString group = model.record(model.rowOf(newest)).seedGroup;
    QVERIFY(!group.isEmpty());
    QCOMPARE(model.record(model.rowOf(older)).seedGroup, group);
    QCOMPARE(model.seedCount(group), 2);
    // Deleted elsewhere: its row goes; the selection stays on the run it was on.
    QVERIFY(QDir(newer).removeRecursively());
    model.refresh(root.path());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.rowOf(newer), -1);
    QCOMPARE(selection.selectedRows().front().row(), model.rowOf(older));
    // The run this window trains is never dropped or read back, folder or no folder.
    QVERIFY(model.liveRow() >= 0);
    QCOMPARE(cell(model, model.liveRow(), RunsModel::Status), QString("running"));
  }

  // Sorted by a column, runs follow its values (those without one last, either way), the
  // selection stays on its runs, new runs and new numbers take their places, and -1 goes
  // back to the folders' order. Started comes from the folder's name, or for a folder the
  // user named, from when its config.json was written.
  void theListSortsByAColumnAndStaysSorted() {
    QTemporaryDir root;
    ExperimentConfig config;
    const auto scored = [&](const QString& name, double accuracy) {
      const QString run = runFolder(root, name, config);
      if (run.isEmpty() || accuracy < 0) return run;
      return writeText(run + "/summary.json", QByteArray::fromStdString(summaryAfterEpoch(1, accuracy).toJson().dump()))
                 ? run : QString();
    };
    const QString low = scored("20260101-000000000-single-cnn", 0.50);
    const QString high = scored("20260102-000000000-single-cnn", 0.90);
    const QString unscored = scored("20260103-000000000-single-cnn", -1);  // no epoch ended: no accuracy
    const QString named = scored("run 10", 0.70);
    QVERIFY(!low.isEmpty() && !high.isEmpty() && !unscored.isEmpty() && !named.isEmpty());
    QFile configFile(named + "/config.json");
    const QDateTime written(QDate(2025, 5, 6), QTime(7, 8, 9));
    QVERIFY(configFile.open(QIODevice::ReadWrite) && configFile.setFileTime(written, QFileDevice::FileModificationTime));
    configFile.close();
    RunsModel model;
    model.scan(root.path());
    const auto order = [&] {
      QStringList folders;
      for (int row = 0; row < model.rowCount(); ++row) folders << model.record(row).name();
      return folders.join(", ");
    };
    QCOMPARE(order(), QString("run 10, 20260103-000000000-single-cnn, 20260102-000000000-single-cnn, "
                              "20260101-000000000-single-cnn"));
    QCOMPARE(cell(model, model.rowOf(high), RunsModel::Started), QString("2026-01-02 00:00"));
    QCOMPARE(cell(model, model.rowOf(named), RunsModel::Started), QString("2025-05-06 07:08"));
    QItemSelectionModel selection(&model);
    selection.select(model.index(model.rowOf(low), 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);

    model.sort(RunsModel::TestAccuracy, Qt::DescendingOrder);
    QCOMPARE(order(), QString("20260102-000000000-single-cnn, run 10, 20260101-000000000-single-cnn, "
                              "20260103-000000000-single-cnn"));
    QCOMPARE(selection.selectedRows().size(), 1);
    QCOMPARE(selection.selectedRows().front().row(), model.rowOf(low));
    model.sort(RunsModel::TestAccuracy, Qt::AscendingOrder);  // the run without one stays last
    QCOMPARE(order(), QString("20260101-000000000-single-cnn, run 10, 20260102-000000000-single-cnn, "
                              "20260103-000000000-single-cnn"));
    QCOMPARE(selection.selectedRows().front().row(), model.rowOf(low));
    model.sort(RunsModel::Started, Qt::AscendingOrder);
    QCOMPARE(order(), QString("run 10, 20260101-000000000-single-cnn, 20260102-000000000-single-cnn, "
                              "20260103-000000000-single-cnn"));

    // Sorted by accuracy, a run scored later, and a new one, take their places.
    model.sort(RunsModel::TestAccuracy, Qt::DescendingOrder);
    QVERIFY(writeText(unscored + "/summary.json", QByteArray::fromStdString(summaryAfterEpoch(1, 0.95).toJson().dump())));
    const QString middling = scored("20260104-000000000-single-cnn", 0.60);
    QVERIFY(!middling.isEmpty());
    model.refresh(root.path());
    QCOMPARE(order(), QString("20260103-000000000-single-cnn, 20260102-000000000-single-cnn, run 10, "
                              "20260104-000000000-single-cnn, 20260101-000000000-single-cnn"));
    QCOMPARE(selection.selectedRows().front().row(), model.rowOf(low));
    // Names as people read them: "run 9" before "run 10".
    QVERIFY(!scored("run 9", 0.1).isEmpty());
    model.refresh(root.path());
    model.sort(RunsModel::Name, Qt::AscendingOrder);
    QVERIFY2(order().endsWith("run 9, run 10"), qPrintable(order()));
    // Back to the folders' order.
    model.sort(-1);
    QCOMPARE(order(), QString("run 9, run 10, 20260104-000000000-single-cnn, 20260103-000000000-single-cnn, "
                              "20260102-000000000-single-cnn, 20260101-000000000-single-cnn"));
    QCOMPARE(selection.selectedRows().front().row(), model.rowOf(low));
  }

  // A click on a column's header sorts the list by it (scores best first), a second the
  // other way, a third back to the folders' order.
  void clickingAHeaderSortsTheList() {
    QTemporaryDir root;
    ExperimentConfig config;
    for (const auto& [name, accuracy] : {std::pair{"20260101-000000000-single-cnn", 0.9}, {"20260102-000000000-single-cnn", 0.5},
                                         {"20260103-000000000-single-cnn", 0.7}}) {
      const QString run = runFolder(root, name, config);
      QVERIFY(!run.isEmpty());
      QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summaryAfterEpoch(1, accuracy).toJson().dump())));
    }
    RunsModel model;
    model.scan(root.path());
    RunListView view(model);
    view.resize(1200, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto accuracies = [&] {
      QStringList shown;
      for (int row = 0; row < model.rowCount(); ++row) shown << cell(model, row, RunsModel::TestAccuracy);
      return shown.join(" ");
    };
    QCOMPARE(accuracies(), QString("0.7000 0.5000 0.9000"));
    QHeaderView* header = view.horizontalHeader();
    const auto clickAccuracy = [&] {
      const QPoint at(header->sectionViewportPosition(RunsModel::TestAccuracy) + header->sectionSize(RunsModel::TestAccuracy) / 2,
                      header->height() / 2);
      QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    };
    clickAccuracy();
    QCOMPARE(accuracies(), QString("0.9000 0.7000 0.5000"));
    clickAccuracy();
    QCOMPARE(accuracies(), QString("0.5000 0.7000 0.9000"));
    {  // the order chosen comes back at the next start
      RunsModel again;
      again.scan(root.path());
      RunListView restarted(again);
      QCOMPARE(again.sortColumn(), int(RunsModel::TestAccuracy));
      QCOMPARE(again.record(0).summary->evaluation->ensemble.accuracy, 0.5);
    }
    clickAccuracy();
    QCOMPARE(accuracies(), QString("0.7000 0.5000 0.9000"));
    QCOMPARE(model.sortColumn(), -1);
  }

  // The results come right after the status by default (at 1400 px they had been out of sight,
  // right of the settings); the header's menu hides and shows columns, a header dragged
  // sideways moves its column, and the arrangement comes back at the next start, until the
  // menu's last entry puts the default back.
  void theColumnsShownAndTheirOrderAreTheUsers() {
    QSettings().clear();
    RunsModel model;
    RunListView view(model);
    QHeaderView* header = view.horizontalHeader();
    const auto shownOrder = [](QHeaderView* h) {
      QStringList names;
      for (int visual = 0; visual < h->count(); ++visual) {
        const int column = h->logicalIndex(visual);
        if (!h->isSectionHidden(column)) names << h->model()->headerData(column, Qt::Horizontal).toString();
      }
      return names.join(", ");
    };
    const QString byDefault = shownOrder(header);
    QVERIFY2(byDefault.startsWith("Run, Status, Test acc., Test NLL, Started, Mode"), qPrintable(byDefault));
    const auto action = [&](const QString& name) { return header->findChild<QAction*>(name); };
    QVERIFY(action("showColumn_run") && !action("showColumn_run")->isEnabled());
    QVERIFY(header->sectionsMovable() && !header->isFirstSectionMovable());  // the run's name stays first
    QCOMPARE(header->contextMenuPolicy(), Qt::ActionsContextMenu);
    action("showColumn_momentum")->trigger();  // unchecked: hidden
    QVERIFY(header->isSectionHidden(RunsModel::Momentum));
    header->moveSection(header->visualIndex(RunsModel::ImagesPerSecond), 2);  // as a drag does
    const QString chosen = shownOrder(header);
    QVERIFY2(chosen.startsWith("Run, Status, img/s, Test acc.") && !chosen.contains("Momentum"), qPrintable(chosen));
    {
      RunsModel again;
      RunListView restarted(again);
      QCOMPARE(shownOrder(restarted.horizontalHeader()), chosen);
      QVERIFY(!restarted.horizontalHeader()->findChild<QAction*>("showColumn_momentum")->isChecked());
    }
    action("showColumn_momentum")->trigger();
    QVERIFY(!header->isSectionHidden(RunsModel::Momentum));
    header->findChild<QAction*>("defaultColumnsAction")->trigger();
    QCOMPARE(shownOrder(header), byDefault);
    {
      RunsModel again;
      RunListView restarted(again);
      QCOMPARE(shownOrder(restarted.horizontalHeader()), byDefault);
    }
    // A kept order that names a column this version lacks, and lacks one it has: the rest as kept.
    // And the run's name shows whatever the settings say.
    QSettings().setValue("runs/columnOrder", QStringList{"run", "img_per_hour", "images_per_second", "status"});
    QSettings().setValue("runs/hiddenColumns", QStringList{"run", "seed_group"});
    RunsModel third;
    RunListView older(third);
    const QString kept = shownOrder(older.horizontalHeader());
    QVERIFY2(kept.startsWith("Run, img/s, Status, Test acc.") && !kept.contains("Seed group"), qPrintable(kept));
    QSettings().clear();
  }

  // Given what the watcher saw change, a refresh reads again only the runs it names (a run's
  // folder, or its metrics.csv) and looks at the folders only where it names something else
  // (the runs folder): at 10,000 runs, stamping every run on every change took 500 ms of the
  // GUI thread twice a second. The watcher's poll looks at the runs that may still be written.
  void aRefreshReadsOnlyWhatTheWatcherSawChange() {
    QTemporaryDir root;
    ExperimentConfig config;
    const QStringList runs = twoRunFolders(root, config);
    QVERIFY(runs.size() == 2);
    const QString a = runs[0], b = runs[1];
    RunsModel model;
    model.scan(root.path());
    const auto later = [](const QString& file) {  // a write after the first, as real ones are
      QFile written(file);
      return written.open(QIODevice::ReadWrite) &&
             written.setFileTime(QDateTime::currentDateTime().addSecs(5), QFileDevice::FileModificationTime);
    };
    const auto write = [&](const QString& run, double accuracy) {  // a completed run's summary
      RunSummary summary = summaryAfterEpoch(1, accuracy);
      summary.status = RunStatus::Completed;
      return writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())) && later(run + "/summary.json");
    };
    QVERIFY(write(a, 0.6) && write(b, 0.7));
    RunsFolderChanges onlyA;
    onlyA.paths.insert(QFileInfo(a).absoluteFilePath());
    QCOMPARE(model.refresh(root.path(), &onlyA), QStringList({a}));
    QCOMPARE(cell(model, model.rowOf(b), RunsModel::TestAccuracy), QString());  // not named: not read
    RunsFolderChanges metricsOfB;
    QVERIFY(writeText(b + "/metrics.csv", "step,epoch,member,train_loss,train_accuracy,test_loss,test_accuracy\n"));
    metricsOfB.paths.insert(QFileInfo(b + "/metrics.csv").absoluteFilePath());
    QCOMPARE(model.refresh(root.path(), &metricsOfB), QStringList({b}));
    QCOMPARE(cell(model, model.rowOf(b), RunsModel::TestAccuracy), QString("0.7000"));

    // A new run: listed once the runs folder is named, not before.
    const QString c = runFolder(root, "20260103-000000000-single-cnn", config);
    QVERIFY(!c.isEmpty());
    QCOMPARE(model.refresh(root.path(), &onlyA), QStringList());
    QCOMPARE(model.rowOf(c), -1);
    RunsFolderChanges theFolder;
    theFolder.paths.insert(QFileInfo(root.path()).absoluteFilePath());
    model.refresh(root.path(), &theFolder);
    QCOMPARE(model.rowOf(c), 0);

    // The poll: a run that may still be written (c: no summary when listed) is looked at, a
    // completed one (a) is not.
    RunSummary running = summaryAfterEpoch(1, 0.8);
    running.status = RunStatus::Running;
    QVERIFY(writeText(c + "/summary.json", QByteArray::fromStdString(running.toJson().dump())) && later(c + "/summary.json"));
    QVERIFY(write(a, 0.9));
    RunsFolderChanges polled;
    polled.poll = true;
    QCOMPARE(model.refresh(root.path(), &polled), QStringList({c}));
    QCOMPARE(cell(model, model.rowOf(a), RunsModel::TestAccuracy), QString("0.6000"));
  }

  // A test limit above the test set's size: once evaluated, the row shows the images the run
  // was scored on, not the limit it asked for.
  void samplesShowTheTestImagesTheRunWasScoredOn() {
    QTemporaryDir root;
    const QString run = root.filePath("20260101-000000000-single-cnn");
    ExperimentConfig config;
    config.trainLimit = 3000;
    config.testLimit = 10000;
    QVERIFY(QDir().mkpath(run) && writeText(run + "/config.json", QByteArray::fromStdString(config.toJson().dump())));
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(cell(model, 0, RunsModel::Samples), QString("3000 / 10000"));  // not yet evaluated
    RunSummary summary = summaryAfterEpoch(1, 0.7);
    summary.evaluation->samples = 500;
    QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
    model.scan(root.path());
    QCOMPARE(cell(model, 0, RunsModel::Samples), QString("3000 / 500"));
    // A run on a whole split says how many images that was, as it counted them ("all" had
    // said nothing of the size), and one whose limit passed its dataset's end what it trained on.
    for (const int64_t limit : {int64_t(0), int64_t(90000)}) {
      config.trainLimit = limit;
      QVERIFY(writeText(run + "/config.json", QByteArray::fromStdString(config.toJson().dump())));
      summary.trainSamples = 60000;
      QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
      model.scan(root.path());
      QCOMPARE(cell(model, 0, RunsModel::Samples), QString("60000 / 500"));
    }
    summary.trainSamples = 0;  // a summary from before train_samples was recorded
    QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
    model.scan(root.path());
    QCOMPARE(cell(model, 0, RunsModel::Samples), QString("90000 / 500"));
  }

  // The Numerics column: the precision, and a GPU run without deterministic kernels says it
  // does not repeat, with the reason in its tooltip.
  void numericsSayWhetherARunRepeats_data() {
    QTest::addColumn<QString>("devices");
    QTest::addColumn<bool>("deterministic");
    QTest::addColumn<QString>("shown");
    QTest::newRow("GPU, deterministic") << "cuda:0*2" << true << "bf16";
    QTest::newRow("GPU, not deterministic") << "cuda:0*2" << false << "bf16, not reproducible";
    QTest::newRow("CPU, not deterministic: repeats all the same") << "cpu*2" << false << "bf16";
  }
  void numericsSayWhetherARunRepeats() {
    QFETCH(QString, devices);
    QFETCH(bool, deterministic);
    QFETCH(QString, shown);
    QTemporaryDir root;
    const QString run = root.filePath("20260101-000000000-ensemble-cnn");
    ExperimentConfig config;
    config.devices = devices.toStdString();
    config.precision = Precision::Bf16;
    config.deterministic = deterministic;
    QVERIFY(QDir().mkpath(run) && writeText(run + "/config.json", QByteArray::fromStdString(config.toJson().dump())));
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(cell(model, 0, RunsModel::Numerics), shown);
    const QString tip = cell(model, 0, RunsModel::Numerics, Qt::ToolTipRole);
    QCOMPARE(tip.contains("not reproducible: \"Deterministic\" is off"), shown.contains("not reproducible"));
    QCOMPARE(model.headerData(RunsModel::Numerics, Qt::Horizontal, Qt::DisplayRole).toString(), QString("Numerics"));
  }

  // A run stopped or killed inside its first epoch, evaluated every 4 steps: no epoch row
  // gives the steps per epoch, summary.json (written when the run started) does.
  void evaluationsOfAFirstEpochThatNeverEndedArePlacedFromTheSummary() {
    QTemporaryDir root;
    const QString run = singleRunFolder(root);
    QVERIFY(!run.isEmpty());
    QVERIFY(writeText(run + "/metrics.csv", "step,epoch,member,train_loss,train_accuracy,test_loss,test_accuracy\n"
                                            "4,1,0,,,0.9,0.6\n8,1,0,,,0.8,0.7\n10,1,0,0.85,0.65,,\n"));
    RunSummary summary;
    summary.status = RunStatus::Running;  // killed: it never wrote another
    summary.stepsCompleted = 10;
    summary.stepsPerEpoch = 16;
    QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
    RunRecord record = RunRecord::load(run);
    QVERIFY2(record.ensureCurves(), qPrintable(record.problem));
    QCOMPARE(record.curves->series(Metric::TestAccuracy, 0).x, QVector<double>({0.25, 0.5}));
    QCOMPARE(record.curves->series(Metric::TrainLoss, 0).x, QVector<double>({10}));
  }

  // Stopped before its first epoch ended: no epoch time to show (it showed "0.0").
  void aRunStoppedInItsFirstEpochShowsNoEpochTime() {
    QTemporaryDir root;
    for (const int epochs : {0, 1}) {
      const QString run = root.filePath(QString("20260101-00000000%1-ensemble-cnn").arg(epochs));
      QVERIFY(QDir().mkpath(run));
      QVERIFY(writeText(run + "/config.json", QByteArray::fromStdString(ExperimentConfig{}.toJson().dump())));
      RunSummary summary = summaryAfterEpoch(epochs, 0.5);
      summary.status = RunStatus::Stopped;
      QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.toJson().dump())));
    }
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(cell(model, 0, RunsModel::SecondsPerEpoch), QString("2.5"));  // newest first: the one-epoch run
    QCOMPARE(cell(model, 1, RunsModel::SecondsPerEpoch), QString());
  }

  void damagedSummaryShowsUnreadableAndWhy() {
    QTemporaryDir root;
    const QString run = root.filePath("20260101-000000000-ensemble-cnn");
    QVERIFY(QDir().mkpath(run));
    QVERIFY(writeText(run + "/config.json", QByteArray::fromStdString(ExperimentConfig{}.toJson().dump())));
    nlohmann::json summary = summaryAfterEpoch(1, 0.5).toJson();
    summary["epochs_completed"] = "one";
    QVERIFY(writeText(run + "/summary.json", QByteArray::fromStdString(summary.dump())));
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(cell(model, 0, RunsModel::Status), QString("unreadable"));
    const QString why = cell(model, 0, RunsModel::Status, Qt::ToolTipRole);
    QVERIFY2(why.contains("summary.json") && why.contains("epochs_completed"), qPrintable(why));
    QCOMPARE(cell(model, 0, RunsModel::Mode), QString("ensemble"));  // the readable config still shows
  }

  // Runs whose names from their settings are the same get the settings that differ among them
  // where they hold no default (seeds aside, which the name says), and lose them once nothing
  // needs telling apart.
  void runsThatDifferInAnySettingHaveDistinctNames() {
    QTemporaryDir root;
    const auto single = [](double momentum, int64_t batch, std::uint64_t seed) {
      ExperimentConfig config;
      config.mode = TrainingMode::Single;
      config.momentum = momentum;
      config.batchSize = batch;
      config.seed = seed;
      return config;
    };
    ExperimentConfig otherData = single(0.9, 128, 0);
    otherData.dataset = "/data/kmnist/";
    QVERIFY(!runFolder(root, "20260101-000000001-single-cnn", single(0.9, 128, 0)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000002-single-cnn", single(0.5, 128, 0)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000003-single-cnn", single(0.5, 128, 1)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000004-single-cnn", single(0.9, 64, 0)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000005-single-cnn", otherData).isEmpty());
    QVERIFY(!runFolder(root, "my run", single(0.2, 128, 0)).isEmpty());  // renamed: named by its folder
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(model.rowCount(), 6);
    QStringList names;
    for (int row = 0; row < model.rowCount(); ++row) names << model.record(row).displayName();
    // Newest first; "my run" sorts first.
    const QStringList expected{
        "my run",
        "single · lr 0.1 · dataset kmnist",
        "single · lr 0.1 · batch size 64",
        "single · lr 0.1 · seed 1 · momentum 0.5",
        "single · lr 0.1 · momentum 0.5",
        "single · lr 0.1",  // every setting at its default: nothing added
    };
    QCOMPARE(names, expected);

    // Renamed, the other dataset's, the batch-64 and the default run are named by their
    // folders: the two momentum-0.5 runs left are seeds of one setup, which nothing added
    // tells apart.
    // (A renamed run takes its new name's place in the list.)
    model.setDirectory(model.rowOf(root.filePath("20260101-000000005-single-cnn")), root.filePath("kmnist"));
    model.setDirectory(model.rowOf(root.filePath("20260101-000000004-single-cnn")), root.filePath("batch 64"));
    model.setDirectory(model.rowOf(root.filePath("20260101-000000001-single-cnn")), root.filePath("default"));
    QCOMPARE(model.record(model.rowOf(root.filePath("20260101-000000003-single-cnn"))).displayName(),
             QString("single · lr 0.1 · seed 1"));
    QCOMPARE(model.record(model.rowOf(root.filePath("20260101-000000002-single-cnn"))).displayName(),
             QString("single · lr 0.1"));

    // Seeds of one setup need no distinctions: the seed tells them apart.
    QTemporaryDir seeds;
    QVERIFY(!runFolder(seeds, "20260101-000000001-single-cnn", single(0.9, 128, 0)).isEmpty());
    QVERIFY(!runFolder(seeds, "20260101-000000002-single-cnn", single(0.9, 128, 3)).isEmpty());
    model.scan(seeds.path());
    QCOMPARE(model.record(0).displayName(), QString("single · lr 0.1 · seed 3"));
    QCOMPARE(model.record(1).displayName(), QString("single · lr 0.1"));
  }

  // Two seed groups that differ in momentum: each group's legend label says its setup as
  // its runs' names do, so the two labels differ where the setups do.
  void seedGroupsAreNamedByTheSetupTheyShare() {
    QTemporaryDir root;
    const auto seeded = [](double momentum, std::uint64_t seed) {
      ExperimentConfig config;
      config.mode = TrainingMode::Single;
      config.momentum = momentum;
      config.seed = seed;
      return config;
    };
    QVERIFY(!runFolder(root, "20260101-000000001-single-cnn", seeded(0.9, 0)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000002-single-cnn", seeded(0.9, 1)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000003-single-cnn", seeded(0.5, 0)).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000004-single-cnn", seeded(0.5, 1)).isEmpty());
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(model.rowCount(), 4);
    QVector<RunRecord> records;  // as the window hands them over: with curves (none logged here)
    for (int row = 0; row < model.rowCount(); ++row) {
      records.push_back(model.record(row));
      records.back().curves = std::make_shared<RunCurves>(records.back().displayName());
    }
    QVector<const RunRecord*> selected;
    for (const RunRecord& record : records) selected.push_back(&record);
    const PlotSelection shown = plotSelection(selected, /*groupSeeds=*/true);
    QCOMPARE(shown.groups.size(), 2);
    QCOMPARE(shown.runs.size(), 0);
    QStringList setups;
    for (const auto& group : shown.groups) {
      QVERIFY2(group->label().startsWith(group->name() + " ("), qPrintable(group->label()));
      setups << group->label().mid(group->name().size());
    }
    setups.sort();
    QCOMPARE(setups, (QStringList{" (single · lr 0.1 · momentum 0.5, seeds 0,1)", " (single · lr 0.1, seeds 0,1)"}));
  }

  // A plot's caption names the optimizer's settings: the warmup and schedule beside the rate
  // and the weight decay (and an init_std) where they are not the defaults, nothing of them
  // where they are.
  // Two runs that differ only in them get names that say so.
  void captionsAndNamesSayTheScheduleAndWeightDecay() {
    QTemporaryDir root;
    ExperimentConfig plain, tuned, stepped;
    tuned.lrSchedule = LrSchedule::Cosine;
    tuned.lrWarmupSteps = 50;
    tuned.weightDecay = 5e-4;
    tuned.initStd = 0.01;
    stepped.lrSchedule = LrSchedule::Step;
    QVERIFY(!runFolder(root, "20260101-000000001-ensemble-cnn", plain).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000002-ensemble-cnn", tuned).isEmpty());
    QVERIFY(!runFolder(root, "20260101-000000003-ensemble-cnn", stepped).isEmpty());
    RunsModel model;
    model.scan(root.path());
    QCOMPARE(model.rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
      const RunRecord& record = model.record(row);
      const QString caption = record.captionLine();
      if (record.config->lrSchedule == LrSchedule::Step) {
        QVERIFY2(caption.contains("lr 0.1 (step decay) · momentum 0.9 · batch"), qPrintable(caption));
      } else if (record.config->weightDecay != 0) {
        QVERIFY2(caption.contains("lr 0.1 (50 warmup steps, cosine) · momentum 0.9 · weight decay 0.0005 · initial weights' "
                                  "std 0.01 · batch"),
                 qPrintable(caption));
      } else {
        QVERIFY2(caption.contains("lr 0.1 · momentum 0.9 · batch") && !caption.contains("cosine") && !caption.contains("warmup"), qPrintable(caption));
      }
    }
    QVector<const ExperimentConfig*> configs{&plain, &tuned};
    const QVector<QStringList> distinctions = distinctionsAmong(configs);
    QCOMPARE(distinctions[0], QStringList());
    QCOMPARE(distinctions[1],
             (QStringList{"LR schedule cosine", "LR warmup 50", "weight decay 0.0005", "initial weights' std 0.01"}));
  }
};

QTEST_MAIN(TestRunsModel)
#include "TestRunsModel.moc"
