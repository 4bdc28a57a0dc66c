// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a disk that really fills up (a small tmpfs this test mounts, filled by an
// ordinary file; the kernel says ENOSPC, nothing is injected). A run trained from the
// window says so in the window's words and keeps its last checkpoint and whole metrics
// rows; once there is room, Resume finishes it. Every export the window offers (plots as
// PNG, PDF, SVG and CSV, metrics, the checkpoint, runs side by side) fails with the
// reason and leaves what was at its target as it was. Needs root (mount); skips without.
#include <QDir>
#include <QDirIterator>
#include <QFileDialog>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QPushButton>
#include <QScopeGuard>
#include <QTimer>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>

#include "core/data/DatasetSource.h"
#include "core/io/MetricsCsvReader.h"
#include "core/runs/RunSummary.h"
#include "tests/ChildProcess.h"
#include "tests/FormSetup.h"
#include "tests/IdxSplitFiles.h"
#include "tests/RunStatusCheck.h"
#include "tests/SmallDisk.h"
#include "ui/ExperimentForm.h"
#include "ui/ExportActions.h"
#include "ui/MainWindow.h"
#include "ui/MetricPlot.h"
#include "ui/PlotExport.h"
#include "ui/RunController.h"
#include "ui/RunsModel.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

using testing::runCli;

/// The first run folder under `root` whose checkpoint is written.
QString runWithCheckpoint(const QString& root) {
  QDirIterator it(root, {"latest"}, QDir::Files, QDirIterator::Subdirectories);
  return it.hasNext() ? QFileInfo(it.next()).dir().absolutePath().section('/', 0, -2) : QString();
}

}  // namespace

class TestFullDiskWindow final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  testing::SmallDisk m_disk;
  QString m_runs;  ///< two finished runs on a disk with room: "long" and "short"

  QString run(const QString& name) const { return m_runs + "/" + name; }

 private slots:
  void cleanup() { m_disk.release(); }  // a failed case leaves the next one room

  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    const QString whyNot = m_disk.mount(m_dir.filePath("small-disk"), 48);
    if (!whyNot.isEmpty()) QSKIP(qPrintable(whyNot));
    m_runs = m_dir.filePath("runs");
    const QStringList common{"train", "--dataset", "synthetic", "--devices", "cpu*2", "--log-every", "1"};
    QCOMPARE(runCli(common + QStringList{"--epochs", "4", "--out", run("long")}), 0);
    QCOMPARE(runCli(common + QStringList{"--epochs", "1", "--out", run("short")}), 0);
  }

  // Delete on a disk that will not let the folder go (read-only): the run stays listed and the
  // window says why. The row had gone without a word, the folder whole on disk, and the run
  // came back at the next start.
  void aRunTheDiskWillNotLetGoStaysListed() {
    const QString root = m_disk.path() + "/kept-runs";
    QVERIFY(QDir().mkpath(root));
    std::filesystem::copy(run("short").toStdString(), (root + "/short").toStdString(),
                          std::filesystem::copy_options::recursive);
    QVERIFY(m_disk.setReadOnly(true));
    auto writable = qScopeGuard([this] { m_disk.setReadOnly(false); });
    MainWindow window(root);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString folder = root + "/short";
    QVERIFY(window.runsModel()->rowOf(folder) >= 0);
    window.runsView()->selectRow(window.runsModel()->rowOf(folder));
    QTimer::singleShot(200, [] {
      if (auto* question = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
        question->button(QMessageBox::Yes)->click();
      }
    });
    window.runsView()->findChild<QAction*>("deleteAction")->trigger();
    QMessageBox* error = nullptr;
    QTRY_VERIFY((error = window.findChild<QMessageBox*>("errorMessage")) != nullptr);
    QVERIFY2(error->text().contains("This run folder could not be deleted, and stays in the list") &&
                 error->text().contains("short: Read-only file system"),
             qPrintable(error->text()));
    QVERIFY(window.runsModel()->rowOf(folder) >= 0);
    QVERIFY(QFileInfo::exists(folder + "/summary.json"));
  }

  // A folder of CSV files on a read-only disk (a share, a write-protected card): its import
  // cannot go beside it, so the question says so and the user picks where it goes (the import
  // had failed with "Read-only file system", and the window offered nothing else).
  void aReadOnlyFolderIsImportedWhereTheUserChooses() {
    const QString kaggle = m_disk.path() + "/kaggle";
    idx_files::writeKaggleCsvFolder(kaggle);
    QVERIFY(m_disk.setReadOnly(true));
    auto writable = qScopeGuard([this] { m_disk.setReadOnly(false); });
    QTemporaryDir chosen;
    ExperimentForm form;
    QStringList asked;
    QTimer answer;  // presses "Import into…" (or, where there is none, Cancel), then picks `chosen`
    connect(&answer, &QTimer::timeout, &form, [&] {
      QWidget* modal = QApplication::activeModalWidget();
      if (auto* box = qobject_cast<QMessageBox*>(modal)) {
        asked << box->text();
        for (QAbstractButton* button : box->buttons()) {
          if (button->text().remove('&') == "Import into…") return button->click();
        }
        return box->button(QMessageBox::Cancel)->click();
      }
      if (auto* dialog = qobject_cast<QFileDialog*>(modal)) {
        dialog->setDirectory(chosen.path());
        QMetaObject::invokeMethod(dialog, "accept");  // its Choose button
      }
    });
    answer.start(20);
    QCOMPARE(form.openDatasetFolder(kaggle), QString());
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked[0].contains("cannot be written beside it: " + m_disk.path() + " is read-only"), qPrintable(asked[0]));
    const QString imported = chosen.filePath("kaggle-idx");
    QCOMPARE(form.datasetBox()->currentData().toString(), imported);
    QCOMPARE(ensemble::datasetShape(imported.toStdString()).trainSamples, 12);
    QVERIFY(!QFileInfo::exists(m_disk.path() + "/kaggle-idx"));
    // Opened again and sent to the same place, the earlier import is opened, not refused.
    form.datasetBox()->setCurrentIndex(form.datasetBox()->findData("synthetic"));
    QCOMPARE(form.openDatasetFolder(kaggle), QString());
    QCOMPARE(asked.size(), 2);
    QCOMPARE(form.datasetBox()->currentData().toString(), imported);
  }

  void aRunFromTheWindowOnAFullDiskSaysSoKeepsItsCheckpointAndResumes() {
    const QString root = m_disk.path() + "/window-runs";
    QVERIFY(QDir().mkpath(root));
    MainWindow window(root);
    testing::QuickRun quick;
    quick.cpuReplicas = 2;
    quick.epochs = 12;
    testing::setUpForm(window.form(), quick);
    QSignalSpy finished(window.controller(), &RunController::runFinished);
    QSignalSpy paused(window.controller(), &RunController::pausedChanged);
    window.startRun();
    QString directory;
    QTRY_VERIFY_WITH_TIMEOUT(!(directory = runWithCheckpoint(root)).isEmpty(), 120000);
    // Held at a step boundary while the disk fills, so that it fails mid-run on any machine: a
    // 4-epoch run, unheld, once trained to its end during the fill (ASan, its loops unchecked).
    window.controller()->pause();
    QTRY_VERIFY_WITH_TIMEOUT(!paused.isEmpty() && paused.last().first().toBool(), 60000);
    QVERIFY(m_disk.fill(0) > 0);
    window.controller()->unpause();
    QVERIFY(finished.wait(300000));
    const RunFinishedEvent event = finished.last().first().value<RunFinishedEvent>();
    EXPECT_STATUS(event, RunStatus::Failed);
    const QString status = window.statusText();
    QVERIFY2(status.contains("No space left on device") && status.contains("free some disk space"), qPrintable(status));
    QVERIFY2(!status.contains("--") && !status.contains("ensemble-lab-cli"), qPrintable(status));  // the window's words
    qInfo("the window said: %s", qPrintable(status));
    QTRY_VERIFY(window.findChild<QWidget*>("errorMessage") != nullptr);
    QVERIFY(window.startAction()->isEnabled());

    // Kept: a checkpoint that loads, and metrics rows that are whole.
    const RunSummary kept = RunSummary::read((directory + "/summary.json").toStdString());
    QVERIFY2(kept.stepsCompleted > 0 && kept.epochsCompleted < quick.epochs,
             qPrintable(QString("steps %1, epochs %2").arg(kept.stepsCompleted).arg(kept.epochsCompleted)));
    QVERIFY(!readMetricsCsv((directory + "/metrics.csv").toStdString()).empty());

    // Room again: Resume from the window finishes the run, every step logged once.
    QVERIFY(m_disk.release());
    window.runsView()->selectRow(window.runsModel()->rowOf(directory));
    window.findChild<QAction*>("resumeAction")->trigger();
    QVERIFY(finished.wait(300000));
    REQUIRE_COMPLETED(finished.last().first().value<RunFinishedEvent>());
    QCOMPARE(RunSummary::read((directory + "/summary.json").toStdString()).epochsCompleted, int64_t(quick.epochs));
    QSet<QString> logged;
    for (const MetricsRow& row : readMetricsCsv((directory + "/metrics.csv").toStdString())) {
      const QString key = QString("%1/%2/%3").arg(row.step).arg(QString::fromStdString(row.member)).arg(row.testLoss.has_value());
      QVERIFY2(!logged.contains(key), qPrintable("logged twice: " + key));
      logged.insert(key);
    }
    QVERIFY(QDir(directory).removeRecursively());
  }

  void theWindowsExportsOnAFullDiskKeepWhatWasThere_data() {
    QTest::addColumn<QString>("target");
    for (const char* target : {"plot.png", "plot.pdf", "plot.svg", "plot.csv", "metrics.csv", "metrics.json",
                               "checkpoints", "runs.csv"}) {
      QTest::newRow(target) << QString(target);
    }
  }
  void theWindowsExportsOnAFullDiskKeepWhatWasThere() {
    QFETCH(QString, target);
    MainWindow window(m_runs);
    const QString path = m_disk.path() + "/" + target;
    if (target == "checkpoints") QVERIFY(QDir().mkpath(path));
    // `runs` selected in the list, then the export the window's File > Export makes of
    // them once its dialog has said where.
    const auto exportOf = [&](const QStringList& runs) {
      window.runsView()->clearSelection();
      for (const QString& name : runs) {
        window.runsView()->selectionModel()->select(window.runsModel()->index(window.runsModel()->rowOf(run(name)), 0),
                                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
      }
      QCoreApplication::processEvents();
      if (target.startsWith("plot.")) return exportPlot(window.plots()[0]->customPlot(), path, "caption");
      if (target.startsWith("metrics.")) return ExportActions::exportMetrics(run(runs.front()), path);
      if (target == "checkpoints") return ExportActions::exportCheckpoint(run(runs.front()), path);
      QStringList directories;
      for (const QString& name : runs) directories << run(name);
      return ExportActions::exportRuns(directories, path);
    };
    // What was there before: the short run's export (smaller than the long run's).
    QCOMPARE(exportOf({"short"}), QString());
    const QStringList before = testing::filesWithContents(path) + testing::filesWithContents(ExportActions::curvesPathFor(path));
    QVERIFY(!before.isEmpty());

    QVERIFY(m_disk.fill(0) > 0);
    const QString error = exportOf({"long", "short"});
    QVERIFY2(error.contains("No space left on device") && error.contains("free some disk space"), qPrintable(error));
    QVERIFY2(!error.contains("--"), qPrintable(error));
    qInfo("%s", qPrintable(error));
    QCOMPARE(testing::filesWithContents(path) + testing::filesWithContents(ExportActions::curvesPathFor(path)), before);
    QCOMPARE(testing::stagingLeftovers(m_disk.path()), QStringList());

    QVERIFY(m_disk.release());
    QCOMPARE(exportOf({"long", "short"}), QString());
    QVERIFY(testing::filesWithContents(path) != before);
    QVERIFY(QFileInfo(path).isDir() ? QDir(path).removeRecursively() : QFile::remove(path));
    QFile::remove(ExportActions::curvesPathFor(path));
  }
};

QTEST_MAIN(TestFullDiskWindow)
#include "TestFullDiskWindow.moc"
