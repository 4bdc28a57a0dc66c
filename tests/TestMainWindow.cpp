// The window as a user drives it (offscreen): past runs reload, invalid setup disables
// Start, a real run streams into the plots and the run list, runs compare, plots and
// metrics export, a failing run leaves the app usable, closing mid-run stops cleanly.
#include <qcustomplot.h>

#include <QAction>
#include <QComboBox>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/train/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "ui/ExperimentForm.h"
#include "ui/MainWindow.h"
#include "ui/MetricPlot.h"
#include "ui/PlotExport.h"
#include "ui/RunController.h"
#include "ui/RunsModel.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

void quickSetup(ExperimentForm* form) {
  form->datasetBox()->setCurrentIndex(form->datasetBox()->findData("synthetic"));
  form->modeBox()->setCurrentIndex(form->modeBox()->findData("ensemble"));
  form->cpuReplicasBox()->setValue(3);
  form->batchSizeBox()->setValue(64);
  form->epochsBox()->setValue(2);
  form->trainLimitBox()->setValue(1024);
}

}  // namespace

class TestMainWindow final : public QObject {
  Q_OBJECT

  QTemporaryDir m_root;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    // A past run written by the engine, as the CLI writes it.
    ExperimentConfig config;
    config.dataset = "synthetic";
    config.mode = TrainingMode::Single;
    config.devices = "cpu";
    config.batchSize = 64;
    config.epochs = 2;
    config.trainLimit = 1024;
    auto trainer = Trainer::create(config, m_root.filePath("20260101-000000000-single-cnn").toStdString());
    QCOMPARE(int(trainer->run(nullptr, nullptr).status), int(RunStatus::Completed));
  }

  void trainsComparesAndExports() {
    MainWindow window(m_root.path());
    window.show();
    QCOMPARE(window.runsModel()->rowCount(), 1);  // the past run, reloaded
    ExperimentForm* form = window.form();
    quickSetup(form);
    form->learningRateEdit()->setText("-1");
    QVERIFY(!window.startAction()->isEnabled());
    form->learningRateEdit()->setText("0.1");
    QVERIFY(window.startAction()->isEnabled());

    QSignalSpy finished(window.controller(), &RunController::runFinished);
    window.startAction()->trigger();
    QVERIFY(!window.startAction()->isEnabled());
    QVERIFY(window.stopAction()->isEnabled());
    QVERIFY(finished.wait(180000));
    QCOMPARE(int(finished.first().first().value<RunFinishedEvent>().status), int(RunStatus::Completed));
    QTRY_VERIFY(window.startAction()->isEnabled());
    QCOMPARE(window.runsModel()->rowCount(), 2);
    QVERIFY(window.statusText().contains("Run finished"));
    const int live = window.runsModel()->rowOf(QString::fromStdString(finished.first().first().value<RunFinishedEvent>().runDirectory));
    QCOMPARE(live, 0);
    QCOMPARE(window.runsModel()->data(window.runsModel()->index(0, RunsModel::Status), Qt::DisplayRole).toString(), QString("completed"));

    // The live curves reached the plots: 3 members + ensemble, 16 steps per epoch.
    MetricPlot* trainLoss = window.plots()[0];
    QTRY_COMPARE(trainLoss->pointsOf(0, RunCurves::kEnsemble), 5);  // steps 10, 16 (epoch end), 20, 30, 32
    QCOMPARE(window.plots()[3]->pointsOf(0, RunCurves::kEnsemble), 2);  // two epochs
    // The ensemble tab: three members, their mean, the ensemble; a 3-point size curve.
    QCOMPARE(window.memberTable()->rowCount(), 5);
    QCOMPARE(window.sizePlot()->graph(0)->dataCount(), 3);

    // Compare: select both runs; the plots overlay the past single run.
    window.runsView()->selectAll();
    QTRY_COMPARE(window.plots()[3]->graphCount(), 4 + 1);
    QCOMPARE(window.plots()[3]->pointsOf(1, 0), 2);

    QDir out(m_root.filePath("exports"));
    QVERIFY(out.mkpath("."));
    for (const QString suffix : {"png", "pdf", "svg"}) {
      const QString path = out.filePath("test-accuracy." + suffix);
      QVERIFY2(exportPlot(window.plots()[3]->customPlot(), path).isEmpty(), qPrintable(path));
      QVERIFY(QFileInfo(path).size() > 1000);
    }
    QImage png(out.filePath("test-accuracy.png"));
    QVERIFY(!png.isNull());
    QVERIFY(png.width() >= 640);
    QFile svg(out.filePath("test-accuracy.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));

    QVERIFY(window.exportMetrics(0, out.filePath("m.csv")).isEmpty());
    QVERIFY(QFile(out.filePath("m.csv")).size() > 100);
    QVERIFY(window.exportMetrics(0, out.filePath("m.json")).isEmpty());
    QFile json(out.filePath("m.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(doc["curves"].toObject()["ensemble"].toObject()["test_accuracy"].toArray().size(), 2);
    QVERIFY(window.exportCheckpoint(0, out.path()).isEmpty());
    QVERIFY(!QDir(out.path()).entryList({"*-step-*"}, QDir::Dirs).isEmpty());

    // A screenshot of what a person sees (kept in the build folder for review).
    window.resize(1400, 900);
    QCoreApplication::processEvents();  // let the plots' queued replots run
    QVERIFY(window.grab().save(QDir::current().filePath("main-window.png")));
  }

  void failedRunShowsTheErrorAndTheAppStaysUsable() {
    MainWindow window(m_root.path());
    quickSetup(window.form());
    window.form()->addDatasetFolder(m_root.filePath("missing-dataset"));
    QSignalSpy finished(window.controller(), &RunController::runFinished);
    window.startRun();
    QVERIFY(finished.wait(60000));
    QVERIFY2(window.statusText().contains("Run failed") && window.statusText().contains("does not exist"),
             qPrintable(window.statusText()));
    QTRY_VERIFY(window.findChild<QWidget*>("errorMessage") != nullptr);
    QVERIFY(window.startAction()->isEnabled());  // a new run can start
  }

  void closingDuringARunStopsItCleanly() {
    auto* window = new MainWindow(m_root.path());
    window->setConfirmClose(false);
    quickSetup(window->form());
    window->form()->epochsBox()->setValue(200);
    QSignalSpy steps(window->controller(), &RunController::stepsReady);
    window->startRun();
    QVERIFY(steps.wait(60000));
    const QString directory = window->runsModel()->record(0).directory;
    QCOMPARE(window->runsModel()->data(window->runsModel()->index(0, RunsModel::Status), Qt::DisplayRole).toString(),
             QString("running"));
    QVERIFY(window->close());
    delete window;
    QFile summary(directory + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    QCOMPARE(QJsonDocument::fromJson(summary.readAll()).object()["status"].toString(), QString("stopped"));
  }
};

QTEST_MAIN(TestMainWindow)
#include "TestMainWindow.moc"
