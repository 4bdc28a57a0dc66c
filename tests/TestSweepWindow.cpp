// SPDX-License-Identifier: GPL-3.0-or-later
// A sweep from the window (Run > New sweep…, the Sweep tab): the dialog checks the grid as
// it is typed; the queue trains every job through the real worker thread, records a failed
// one and goes on; it pauses after the running job, reorders pending jobs, cancels the
// running one with a checkpoint, and a new window opens the sweep again and finishes it.
// While it trains, the sweep is the window's alone (its lock): `sweep --resume` is refused.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QProcess>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QSettings>
#include <QtTest>

#include "core/io/RunWriterLock.h"
#include "core/runs/Sweep.h"
#include "tests/FormSetup.h"
#include "tests/RunStatusCheck.h"
#include "ui/ExperimentForm.h"
#include "ui/MainWindow.h"
#include "ui/RunController.h"
#include "ui/RunsModel.h"
#include "ui/SweepDialog.h"
#include "ui/SweepPanel.h"
#include "ui/SweepQueue.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

void quickSetup(ExperimentForm* form, int epochs) {
  testing::QuickRun run;
  run.mode = "single";
  run.cpuReplicas = 1;
  run.epochs = epochs;
  testing::setUpForm(form, run);
}

/// The jobs' states as sweep.json on disk has them, in its order.
QStringList statesOnDisk(const QString& folder) {
  QFile file(folder + "/sweep.json");
  if (!file.open(QIODevice::ReadOnly)) return {};
  QStringList states;
  for (const QJsonValue job : QJsonDocument::fromJson(file.readAll()).object()["jobs"].toArray()) {
    states << job.toObject()["name"].toString() + ":" + job.toObject()["status"].toString();
  }
  return states;
}

QStringList states(const SweepQueue& queue) {
  QStringList list;
  for (const SweepJob& job : queue.sweep().jobs) {
    list << QString::fromStdString(job.name + ":" + jobStatusName(job.status));
  }
  return list;
}

/// Every job's message, for a failure's output.
QString messages(const SweepQueue& queue) {
  QStringList list;
  for (const SweepJob& job : queue.sweep().jobs) list << QString::fromStdString(job.name + ": " + job.message);
  return list.join('\n');
}

}  // namespace

class TestSweepWindow final : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();  // the grid typed last comes back
  }

  void theDialogChecksTheGridAsItIsTyped() {
    MainWindow window(m_root.filePath("dialog"));
    quickSetup(window.form(), 1);
    SweepDialog dialog(window.form()->config());
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(!ok->isEnabled());
    dialog.gridEdit()->setPlainText("lrate = 0.1");
    QVERIFY2(dialog.verdict().contains("'lrate' is not a setting") && !ok->isEnabled(), qPrintable(dialog.verdict()));
    dialog.gridEdit()->setPlainText("momentum = 0.5, 1.5");
    QVERIFY2(dialog.verdict().contains("momentum must be in [0, 1)"), qPrintable(dialog.verdict()));
    dialog.gridEdit()->setPlainText("seed = 0, 1\nlr = 0.05, 0.1, 0.2");
    QVERIFY2(dialog.verdict().contains("6 runs, one after another") && ok->isEnabled(), qPrintable(dialog.verdict()));
    QCOMPARE(dialog.plan()->jobs.size(), std::size_t(6));
    QCOMPARE(dialog.plan()->configOf(dialog.plan()->jobs[5]).learningRate, 0.2);
    QCOMPARE(dialog.plan()->configOf(dialog.plan()->jobs[5]).epochs, int64_t(1));  // the form's
    QCOMPARE(dialog.plan()->configOf(dialog.plan()->jobs[5]).devices, std::string("cpu"));
    // Settings on one line move together: two runs, each with its pair.
    dialog.gridEdit()->setPlainText("batch_size, lr = 32:0.05, 64:0.1");
    QVERIFY2(dialog.verdict().contains("2 runs, one after another") && ok->isEnabled(), qPrintable(dialog.verdict()));
    QCOMPARE(dialog.plan()->configOf(dialog.plan()->jobs[1]).batchSize, int64_t(64));
    QCOMPARE(dialog.plan()->configOf(dialog.plan()->jobs[1]).learningRate, 0.1);
    // Over modes, each job takes its mode's devices (the form's suit one mode).
    dialog.gridEdit()->setPlainText("mode = single, ensemble");
    QVERIFY2(dialog.verdict().contains("each mode's default"), qPrintable(dialog.verdict()));
    QCOMPARE(dialog.plan()->configOf(dialog.plan()->jobs[1]).devices, std::string());
    // Each job is checked as train would check it before its data: a job whose settings
    // clash is named, and nothing can start.
    dialog.gridEdit()->setPlainText("devices = cpu, cpu*2");
    QVERIFY2(dialog.verdict().contains("job 002-devices=cpu_2: single mode trains one model") && !ok->isEnabled(),
             qPrintable(dialog.verdict()));
    // And against its training set: a batch larger than the samples it would train on.
    dialog.gridEdit()->setPlainText("batch_size = 32, 100000");
    QVERIFY2(dialog.verdict().contains("job 002-batch_size=100000: batch size 100000 is larger than the") && !ok->isEnabled(),
             qPrintable(dialog.verdict()));
    // Cancelled, the grid comes back the next time, checked.
    dialog.gridEdit()->setPlainText("seed = 0, 1\nlr = 0.05, 0.1");
    dialog.reject();
    SweepDialog again(window.form()->config());
    QCOMPARE(again.gridEdit()->toPlainText(), QString("seed = 0, 1\nlr = 0.05, 0.1"));
    QVERIFY2(again.verdict().contains("4 runs"), qPrintable(again.verdict()));
  }

  void theQueueTrainsEveryJobAndGoesOnAfterAFailure() {
    MainWindow window(m_root.filePath("failing"));
    window.show();
    quickSetup(window.form(), 1);
    SweepDialog dialog(window.form()->config());
    dialog.gridEdit()->setPlainText("seed = 0, 1\nlr = 0.05, 1e9");  // lr 1e9: the loss becomes NaN
    QVERIFY(dialog.plan());
    window.startSweep(*dialog.plan());
    SweepQueue& queue = *window.sweepQueue();
    QCOMPARE(window.tabs()->currentWidget(), window.sweepPanel());
    QTRY_VERIFY_WITH_TIMEOUT(queue.isDone(), 120000);
    QStringList outcomes;
    for (const QString& state : states(queue)) outcomes << state.section(':', -1);
    QVERIFY2(outcomes == (QStringList{"completed", "failed", "completed", "failed"}), qPrintable(messages(queue)));
    QCOMPARE(statesOnDisk(queue.folder()), states(queue));
    QVERIFY2(QString::fromStdString(queue.sweep().jobs[1].message).contains("NaN"), queue.sweep().jobs[1].message.c_str());
    // The panel shows each job's state, the runs list every job's run.
    const QAbstractItemModel* table = window.sweepPanel()->table()->model();
    QCOMPARE(table->index(1, SweepPanel::Column::State).data().toString(), QString("failed"));
    // Its reason fits the tab's width (the table had grown past it, behind a sideways scroll),
    // whole in the tooltip.
    QTableView* view = window.sweepPanel()->table();
    window.tabs()->setCurrentWidget(window.sweepPanel());
    QTRY_VERIFY(view->isVisible());
    QCOMPARE(view->horizontalScrollBar()->maximum(), 0);
    QHeaderView* header = view->horizontalHeader();
    QCOMPARE(header->sectionViewportPosition(SweepPanel::Column::Message) + header->sectionSize(SweepPanel::Column::Message),
             view->viewport()->width());
    const QString reason = table->index(1, SweepPanel::Column::Message).data().toString();
    QVERIFY(reason.contains("NaN"));
    QCOMPARE(table->index(1, SweepPanel::Column::Message).data(Qt::ToolTipRole).toString(), reason);
    // The score the job's last event carried, the number its summary.json holds.
    const auto accuracy = jobTestAccuracy(queue.folder().toStdString(), queue.sweep().jobs[2]);
    QVERIFY(accuracy);
    QCOMPARE(table->index(2, SweepPanel::Column::TestAccuracy).data().toString(), QString::number(*accuracy, 'f', 4));
    QVERIFY2(window.sweepPanel()->summaryText().contains("4 of 4 jobs done, finished"),
             qPrintable(window.sweepPanel()->summaryText()));
    // A failed job is told in the status line, by name, and in the Sweep tab: no message box
    // per job to click away (two had stacked up here).
    QVERIFY(window.findChildren<QMessageBox*>("errorMessage").isEmpty());
    QVERIFY2(window.statusText().startsWith("Sweep job 004-seed=1-lr=") && window.statusText().contains(" failed: ") &&
                 window.statusText().contains("NaN"),
             qPrintable(window.statusText()));
    for (const SweepJob& job : queue.sweep().jobs) {
      QVERIFY(window.runsModel()->rowOf(queue.folder() + "/" + QString::fromStdString(job.name)) >= 0);
    }
    // A new window lists the sweep's jobs among the runs.
    MainWindow reopened(m_root.filePath("failing"));
    QCOMPARE(reopened.runsModel()->rowCount(), 4);
    // A finished sweep holds no lock: `sweep --resume` of it (to retry a job) is not refused.
    QVERIFY(!RunWriterLock::heldElsewhere(queue.folder().toStdString()));
  }

  // One process runs a sweep at a time, as with the CLI alone: the window's running sweep is
  // refused to `sweep --resume` and to a second window, each told who holds it and what to
  // do; the window takes up no other sweep while a job trains; closed, it lets the lock go.
  void aSweepTheWindowRunsIsRefusedElsewhere() {
    const QString root = m_root.filePath("held");
    QString folder;
    {
      MainWindow window(root);
      window.setConfirmClose(false);
      window.show();
      quickSetup(window.form(), 500);
      SweepDialog dialog(window.form()->config());
      dialog.gridEdit()->setPlainText("seed = 0, 1");
      QSignalSpy started(window.controller(), &RunController::runStarted);
      window.startSweep(*dialog.plan());
      folder = window.sweepQueue()->folder();
      QVERIFY(started.wait(60000));

      QProcess cli;
      cli.start(ENSEMBLELAB_CLI_PATH, {"sweep", "--resume", folder});
      QVERIFY(cli.waitForFinished(60000));
      const QString err = cli.readAllStandardError();
      QVERIFY2(cli.exitCode() == 1 && err.contains("sweep " + folder + " is being run by another process") &&
                   err.contains("`ensemble-lab-cli sweep --resume " + folder + "`"),
               qPrintable(err));

      MainWindow second(root);
      second.openSweep(folder);
      QVERIFY(!second.sweepQueue()->hasSweep());
      QMessageBox* refused = nullptr;
      QTRY_VERIFY((refused = second.findChild<QMessageBox*>("errorMessage")) != nullptr);
      QVERIFY2(refused->text().contains("is being run by another process") &&
                   refused->text().contains("Run > Open sweep… on " + folder),
               qPrintable(refused->text()));

      window.openSweep(m_root.filePath("failing"));  // the window's own job still trains
      QCOMPARE(window.sweepQueue()->folder(), folder);
      QMessageBox* busy = nullptr;
      QTRY_VERIFY((busy = window.findChild<QMessageBox*>("errorMessage")) != nullptr);
      QVERIFY2(busy->text().contains("is training job 1"), qPrintable(busy->text()));
      QVERIFY(window.controller()->isRunning());
      QVERIFY(RunWriterLock::heldElsewhere(folder.toStdString()));
    }  // closed mid-job: the job stops with a checkpoint
    QVERIFY(!RunWriterLock::heldElsewhere(folder.toStdString()));
  }

  void theQueuePausesReordersCancelsAndResumesInANewWindow() {
    const QString root = m_root.filePath("controlled");
    QString folder;
    {
      MainWindow window(root);
      window.setConfirmClose(false);
      window.show();
      quickSetup(window.form(), 3);
      SweepDialog dialog(window.form()->config());
      dialog.gridEdit()->setPlainText("seed = 0, 1, 2, 3");
      SweepQueue& queue = *window.sweepQueue();
      SweepPanel& panel = *window.sweepPanel();
      QSignalSpy started(window.controller(), &RunController::runStarted);
      window.startSweep(*dialog.plan());
      folder = queue.folder();
      QVERIFY(started.wait(60000));
      // Pause: the running job finishes, the next does not start.
      panel.pauseButton()->click();
      QTRY_VERIFY_WITH_TIMEOUT(queue.runningJob() < 0, 60000);
      QTest::qWait(300);
      QVERIFY(!window.controller()->isRunning());
      QCOMPARE(states(queue), (QStringList{"001-seed=0:completed", "002-seed=1:pending", "003-seed=2:pending",
                                           "004-seed=3:pending"}));
      QVERIFY(panel.summaryText().contains("paused"));
      // Reorder: job 4 moves up twice, ahead of jobs 2 and 3.
      panel.table()->selectRow(3);
      QVERIFY(panel.upButton()->isEnabled());
      panel.upButton()->click();
      panel.upButton()->click();
      QCOMPARE(states(queue).mid(1), (QStringList{"004-seed=3:pending", "002-seed=1:pending", "003-seed=2:pending"}));
      QCOMPARE(statesOnDisk(folder), states(queue));
      panel.table()->selectRow(0);
      QVERIFY(!panel.upButton()->isEnabled());  // a finished job stays where it is
      // Resume: the moved job runs next; cancel it mid-run.
      started.clear();
      panel.resumeButton()->click();
      QVERIFY(started.wait(60000));
      QVERIFY(QString::fromStdString(started.last().first().value<RunStartedEvent>().runDirectory).endsWith("004-seed=3"));
      panel.cancelButton()->click();
      QTRY_VERIFY_WITH_TIMEOUT(queue.runningJob() < 0, 60000);
      QCOMPARE(states(queue)[1], QString("004-seed=3:stopped"));
      QTest::qWait(300);
      QVERIFY(!window.controller()->isRunning());
      QCOMPARE(statesOnDisk(folder), states(queue));
    }  // the window closes with the sweep unfinished
    // As if killed between naming its checkpoint and writing `latest`: the job still goes on
    // from its checkpoint (its folder, marker and all, is kept), not cleared and begun again.
    const QString cancelled = folder + "/004-seed=3";
    QVERIFY(QFile::remove(cancelled + "/checkpoints/latest"));
    QFile marker(cancelled + "/kept-marker");
    QVERIFY(marker.open(QIODevice::WriteOnly));
    marker.close();

    MainWindow window(root);
    window.show();
    window.openSweep(folder);
    SweepQueue& queue = *window.sweepQueue();
    // The job finished before the window closed shows its score, read once as the sweep opened.
    const QAbstractItemModel* table = window.sweepPanel()->table()->model();
    const auto first = jobTestAccuracy(folder.toStdString(), queue.sweep().jobs[0]);
    QVERIFY(first);
    QCOMPARE(table->index(0, SweepPanel::Column::TestAccuracy).data().toString(), QString::number(*first, 'f', 4));
    QTRY_VERIFY_WITH_TIMEOUT(queue.isDone(), 120000);
    for (int job = 0; job < 4; ++job) QVERIFY(!table->index(job, SweepPanel::Column::TestAccuracy).data().toString().isEmpty());
    QCOMPARE(states(queue), (QStringList{"001-seed=0:completed", "004-seed=3:completed", "002-seed=1:completed",
                                         "003-seed=2:completed"}));
    // The cancelled job went on from its checkpoint and finished all three epochs.
    const int row = window.runsModel()->rowOf(folder + "/004-seed=3");
    QVERIFY(row >= 0);
    QCOMPARE(window.runsModel()->record(row).summary->epochsCompleted, int64_t(3));
    QVERIFY(QFileInfo::exists(cancelled + "/kept-marker"));
    QCOMPARE(statesOnDisk(folder), states(queue));
  }
};

QTEST_MAIN(TestSweepWindow)
#include "TestSweepWindow.moc"
