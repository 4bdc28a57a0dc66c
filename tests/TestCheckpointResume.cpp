// SPDX-License-Identifier: GPL-3.0-or-later
// Stop anywhere, resume, and finish with exactly the weights and metrics of a run that was
// never interrupted (bit for bit on CPU), TensorBoard log included. Damaged checkpoints are
// refused by name.
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <numeric>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>
#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/data/Dataset.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/io/TensorBoardEvents.h"
#include "core/config/ConfigFields.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/RunControl.h"
#include "core/train/RunAnalysis.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingObserver.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

ExperimentConfig resumableConfig() {
  ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
  config.epochs = 2;
  config.trainLimit = 640;  // 10 steps per epoch
  config.checkpointEvery = 3;
  config.logEvery = 2;
  return config;
}

using testing::fileBytes;

nlohmann::json ensembleOf(const QString& dir) {
  return RunDirectory::readJson(RunDirectory(dir.toStdString()).summaryPath()).at("ensemble");
}

}  // namespace

class TestCheckpointResume final : public QObject {
  Q_OBJECT

  QTemporaryDir m_reference;

 private slots:
  void initTestCase() {
    auto trainer = Trainer::create(resumableConfig(), m_reference.path().toStdString(), testing::syntheticData());
    REQUIRE_COMPLETED(trainer->run(nullptr, nullptr));
  }

  void resumeEqualsUninterruptedRun_data() {
    QTest::addColumn<int>("stopAt");
    QTest::addColumn<int>("rewindTo");  // 0: resume from the stop's own checkpoint
    QTest::addColumn<bool>("tornLog");  // the TensorBoard log ends in half a record
    QTest::newRow("at a checkpoint") << 3 << 0 << false;
    QTest::newRow("inside a logging window") << 7 << 0 << false;
    QTest::newRow("at an epoch end") << 10 << 0 << false;
    QTest::newRow("in the second epoch") << 13 << 0 << false;
    // A crash after step 8: the newest checkpoint on disk is step 6, and metrics.csv (and
    // the TensorBoard log) already hold rows up to step 8 that the resumed run must not duplicate.
    QTest::newRow("from an older checkpoint") << 8 << 6 << false;
    QTest::newRow("torn TensorBoard record") << 8 << 6 << true;
  }
  void resumeEqualsUninterruptedRun() {
    QFETCH(int, stopAt);
    QFETCH(int, rewindTo);
    QFETCH(bool, tornLog);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    {
      RunControl control;
      testing::StopAtStep stopper(control, stopAt);
      auto trainer = Trainer::create(resumableConfig(), path, testing::syntheticData());
      const RunFinishedEvent finished = trainer->run(&stopper, &control);
      EXPECT_STATUS(finished, RunStatus::Stopped);
      QVERIFY(QString::fromStdString(phraseMessage(finished.message, FieldNaming::Flags)).contains("ensemble-lab-cli resume --run"));
      QCOMPARE(trainer->globalStep(), int64_t(stopAt));
    }
    if (rewindTo > 0) {
      QFile latest(dir.filePath("checkpoints/latest"));
      QVERIFY(latest.open(QIODevice::WriteOnly | QIODevice::Truncate));
      latest.write(QString("step-%1\n").arg(rewindTo, 9, 10, QChar('0')).toUtf8());
    }
    if (tornLog) {  // a crash in the middle of a TensorBoard record
      QFile log(QDir(dir.filePath("tensorboard/ensemble")).entryInfoList({"*tfevents*"}).value(0).filePath());
      QVERIFY(log.open(QIODevice::Append));
      log.write(QByteArray("\x30\x00\x00\x00\x00\x00\x00\x00half a record", 21));
    }
    auto resumed = Trainer::open(path, testing::syntheticData());
    QCOMPARE(resumed->globalStep(), int64_t(rewindTo > 0 ? rewindTo : stopAt));
    REQUIRE_COMPLETED(resumed->run(nullptr, nullptr));
    // The TensorBoard log too: each point once, none past the checkpoint left over, one
    // intact file per model (the torn one replaced, not appended to).
    QCOMPARE(testing::tensorBoardPoints(dir.filePath("tensorboard")),
             testing::tensorBoardPoints(m_reference.filePath("tensorboard")));
    for (const QString model : {"member-0", "member-1", "ensemble"}) {
      const QFileInfoList files = QDir(dir.filePath("tensorboard/" + model)).entryInfoList({"*tfevents*"});
      QCOMPARE(files.size(), 1);
      std::size_t intact = 0;
      readScalarRecords(fileBytes(files[0].filePath()).toStdString(), &intact);
      QCOMPARE(qint64(intact), files[0].size());
    }

    QVERIFY(testing::sameLatestWeights(path, m_reference.path().toStdString()));
    QCOMPARE(fileBytes(dir.filePath("metrics.csv")), fileBytes(m_reference.filePath("metrics.csv")));
    QCOMPARE(ensembleOf(dir.path()).dump(), ensembleOf(m_reference.path()).dump());
  }

  // A schedule's rate (a warmup, a cosine, both, a step decay) is a function of the global step, so a run
  // stopped mid-epoch at step 7 of 20 and resumed takes every later step at the uninterrupted
  // run's rate: the same weights, byte for byte. And the schedule is used: the weights are not
  // the constant rate's.
  void aScheduleResumesExactly_data() {
    QTest::addColumn<int>("warmupSteps");
    QTest::addColumn<LrSchedule>("schedule");
    QTest::newRow("cosine") << 0 << LrSchedule::Cosine;
    QTest::newRow("warmup, stopped inside it") << 12 << LrSchedule::Constant;
    QTest::newRow("warmup, then cosine") << 5 << LrSchedule::Cosine;
    QTest::newRow("step decay, stopped before its milestones (steps 10 and 15)") << 0 << LrSchedule::Step;
  }
  void aScheduleResumesExactly() {
    QFETCH(int, warmupSteps);
    QFETCH(LrSchedule, schedule);
    ExperimentConfig config = resumableConfig();
    config.lrWarmupSteps = warmupSteps;
    config.lrSchedule = schedule;
    QTemporaryDir uninterrupted, stopped;
    REQUIRE_COMPLETED(Trainer::create(config, uninterrupted.path().toStdString(), testing::syntheticData())->run(nullptr, nullptr));
    {
      RunControl control;
      testing::StopAtStep stopper(control, 7);
      EXPECT_STATUS(Trainer::create(config, stopped.path().toStdString(), testing::syntheticData())->run(&stopper, &control),
                    RunStatus::Stopped);
    }
    REQUIRE_COMPLETED(Trainer::open(stopped.path().toStdString(), testing::syntheticData())->run(nullptr, nullptr));
    QVERIFY(testing::sameLatestWeights(stopped.path().toStdString(), uninterrupted.path().toStdString()));
    QCOMPARE(fileBytes(stopped.filePath("metrics.csv")), fileBytes(uninterrupted.filePath("metrics.csv")));
    QVERIFY(!testing::sameLatestWeights(uninterrupted.path().toStdString(), m_reference.path().toStdString()));
  }

  // config.json deleted, damaged or edited by hand: the resume writes it back as it was,
  // from the checkpoint (the run goes on with the settings it started with).
  void aRemovedOrChangedConfigJsonComesBackOnResume_data() {
    QTest::addColumn<QByteArray>("replacement");  // empty: the file is removed
    QTest::addColumn<QString>("said");  // the resume's notice (it had said nothing)
    QTest::newRow("removed") << QByteArray() << "config.json is missing; it is restored from the checkpoint's copy";
    QTest::newRow("damaged") << QByteArray("{") << "config.json is not valid JSON; it is restored";
    QTest::newRow("epochs edited") << QByteArray("edit epochs") << "config.json was edited (epochs 3, the checkpoint's 2); it is restored";
    // An older version's file (another "version", a setting it did not have yet) is brought
    // up to date without a word: nobody edited it.
    QTest::newRow("an older version's") << QByteArray("older version") << "";
  }
  void aRemovedOrChangedConfigJsonComesBackOnResume() {
    QFETCH(QByteArray, replacement);
    QFETCH(QString, said);
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    {
      RunControl control;
      testing::StopAtStep stopper(control, 3);
      auto trainer = Trainer::create(resumableConfig(), path, testing::syntheticData());
      EXPECT_STATUS(trainer->run(&stopper, &control), RunStatus::Stopped);
    }
    struct Notices final : TrainingObserver {
      std::vector<std::string> said;
      RunControl* control = nullptr;
      int64_t stopAt = 0;
      void onRunStarted(const RunStartedEvent& event) override { said = event.notices; }
      void onStep(const StepEvent& event) override {
        if (control && event.globalStep == stopAt) control->requestStop();
      }
    } notices;
    {  // A resume whose config.json is as it was says nothing of it.
      RunControl control;
      notices.control = &control;
      notices.stopAt = 6;
      EXPECT_STATUS(Trainer::open(path, testing::syntheticData())->run(&notices, &control), RunStatus::Stopped);
      for (const std::string& notice : notices.said) QVERIFY2(notice.find("config.json") == std::string::npos, notice.c_str());
      notices.control = nullptr;
    }
    const QString configPath = dir.filePath("config.json");
    const QByteArray written = fileBytes(configPath);
    QVERIFY(!written.isEmpty() && QFile::remove(configPath));
    if (replacement == "edit epochs") {
      QJsonObject edited = QJsonDocument::fromJson(written).object();
      edited["epochs"] = edited["epochs"].toInt() + 1;
      replacement = QJsonDocument(edited).toJson();
    } else if (replacement == "older version") {
      QJsonObject older = QJsonDocument::fromJson(written).object();
      QVERIFY(older.contains("version") && older.contains("lr_schedule"));
      older["version"] = older["version"].toInt() - 1;
      older.remove("lr_schedule");
      replacement = QJsonDocument(older).toJson();
    }
    if (!replacement.isEmpty()) QVERIFY(testing::writeFile(configPath, replacement));
    auto resumed = Trainer::open(path, testing::syntheticData());
    REQUIRE_COMPLETED(resumed->run(&notices, nullptr));
    QCOMPARE(fileBytes(configPath), written);
    const QString all = QString::fromStdString(std::accumulate(notices.said.begin(), notices.said.end(), std::string()));
    QVERIFY2(said.isEmpty() ? !all.contains("config.json") : all.contains(said), qPrintable(all));
  }

  // A run being trained (the CLI's, a sweep's, the window's) cannot be resumed by a second
  // writer meanwhile: it is refused before its checkpoint is read, saying why, and the first
  // run ends as if alone. Once it ends, the lock is gone with it.
  void aRunBeingTrainedCannotBeResumedMeanwhile() {
    QTemporaryDir dir;
    const std::string path = dir.path().toStdString();
    struct HeldAtFirstCheckpoint final : TrainingObserver {
      std::string run;
      std::atomic<bool> held{false}, go{false}, freeWhenItSaysItEnded{false};
      void onCheckpoint(const CheckpointEvent&) override {
        held = true;
        while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      // The window resumes a run as soon as it hears it ended, before the engine is gone.
      void onRunFinished(const RunFinishedEvent&) override { freeWhenItSaysItEnded = !RunWriterLock::heldElsewhere(run); }
    } gate;
    gate.run = path;
    RunFinishedEvent first;
    std::thread training([&] {
      first = Trainer::create(resumableConfig(), path, testing::syntheticData())->run(&gate, nullptr);
    });
    while (!gate.held) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    bool refused = false;
    try {
      Trainer::open(path, testing::syntheticData());
    } catch (const IoError& e) {
      refused = QString(e.what()).contains("is being trained by another process");
    }
    const bool heldWhileTraining = RunWriterLock::heldElsewhere(path);
    bool lockRefused = false;
    try {
      RunWriterLock::take(path);  // as a second writer's recorder would
    } catch (const IoError&) {
      lockRefused = true;
    }
    gate.go = true;
    training.join();
    QVERIFY(refused);
    QVERIFY(heldWhileTraining);
    QVERIFY(lockRefused);
    REQUIRE_COMPLETED(first);
    QVERIFY(gate.freeWhenItSaysItEnded);
    QCOMPARE(fileBytes(dir.filePath("metrics.csv")), fileBytes(m_reference.filePath("metrics.csv")));
    QVERIFY(!RunWriterLock::heldElsewhere(path));
    QCOMPARE(Trainer::open(path, testing::syntheticData())->globalStep(), int64_t(20));
  }

  void damagedCheckpointsAreRefused_data() {
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("expected");
    QTest::newRow("truncated weights") << "truncate" << "is truncated";
    QTest::newRow("flipped byte") << "flip" << "is corrupt";
    QTest::newRow("missing manifest") << "manifest" << "has no manifest.json";
    QTest::newRow("no checkpoint at all") << "all" << "no checkpoint in";
    QTest::newRow("state of another run") << "state" << "does not fit this run";
    QTest::newRow("step as a huge float") << "float" << "must be an integer";
  }
  void damagedCheckpointsAreRefused() {
    QFETCH(QString, damage);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.trainLimit = 256;
    REQUIRE_COMPLETED(Trainer::create(config, dir.path().toStdString(), testing::syntheticData())
                          ->run(nullptr, nullptr));
    const QString checkpoint = dir.filePath("checkpoints/step-000000004");
    QVERIFY(QFileInfo::exists(checkpoint + "/member-0.pt"));
    if (damage == "truncate") QVERIFY(QFile::resize(checkpoint + "/member-0.pt", 100));
    if (damage == "flip") {
      QFile file(checkpoint + "/member-1.pt");
      QVERIFY(file.open(QIODevice::ReadWrite));
      QByteArray bytes = file.readAll();
      bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x01);
      file.seek(0);
      file.write(bytes);
    }
    if (damage == "manifest") QVERIFY(QFile::remove(checkpoint + "/manifest.json"));
    if (damage == "all") QVERIFY(QDir(dir.filePath("checkpoints")).removeRecursively());
    if (damage == "state" || damage == "float") {  // the manifest parses, its numbers do not fit
      QFile file(checkpoint + "/manifest.json");
      QVERIFY(file.open(QIODevice::ReadWrite));
      QByteArray text = file.readAll();
      const QByteArray step = R"("global_step": 4)";
      QVERIFY(text.contains(step));
      text.replace(step, damage == "state" ? R"("global_step": 999)" : R"("global_step": 1e30)");
      file.resize(0);
      file.write(text);
    }
    try {
      Trainer::open(dir.path().toStdString(), testing::syntheticData());
      QFAIL("a damaged checkpoint was accepted");
    } catch (const CheckpointError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  // Opened on another dataset (`eval --dataset`), a run evaluates there, on the test
  // samples asked for, whatever the size of that dataset's training split; RunAnalysis has
  // no way to train, and its folder is left as it was.
  void aRunOpenedOnOtherDataEvaluatesButNeverTrains() {
    const std::string run = m_reference.path().toStdString();
    const QByteArray summary = fileBytes(m_reference.filePath("summary.json"));
    const QByteArray metrics = fileBytes(m_reference.filePath("metrics.csv"));
    auto small = std::make_shared<DatasetPair>(*testing::syntheticData());
    small->train = small->train.firstSamples(10);  // fewer images than one batch
    auto opened = RunAnalysis::open(run, EvaluationData{"synthetic", 50}, small);
    QCOMPARE(opened->evaluate().samples, int64_t(50));
    QCOMPARE(int64_t(opened->predict().labels.size()), int64_t(50));
    QCOMPARE(fileBytes(m_reference.filePath("summary.json")), summary);
    QCOMPARE(fileBytes(m_reference.filePath("metrics.csv")), metrics);
  }

  // A damaged latest checkpoint names the whole one before it and how to go on from there;
  // removed as it says, the run opens at that one. A run folder that is not there says so.
  void aDamagedLatestCheckpointNamesTheOneBeforeIt() {
    QTemporaryDir dir;
    const std::string run = dir.filePath("run").toStdString();
    std::filesystem::copy(m_reference.path().toStdString(), run, std::filesystem::copy_options::recursive);
    const QString latest = dir.filePath("run/checkpoints/step-000000020");
    QVERIFY(QFile::resize(latest + "/member-0.pt", 100));
    try {
      Trainer::open(run, testing::syntheticData());
      QFAIL("a damaged checkpoint was accepted");
    } catch (const CheckpointError& e) {
      QVERIFY2(QString(e.what()).contains("is truncated") && QString(e.what()).contains("step-000000018, is kept") &&
                   QString(e.what()).contains("remove the damaged " + latest),
               e.what());
    }
    QVERIFY(QDir(latest).removeRecursively());
    QCOMPARE(Trainer::open(run, testing::syntheticData())->globalStep(), int64_t(18));
    try {
      Trainer::open(dir.filePath("no-such-run").toStdString(), testing::syntheticData());
      QFAIL("a missing run folder was opened");
    } catch (const CheckpointError& e) {
      QVERIFY2(QString(e.what()).contains("run folder " + dir.filePath("no-such-run") + " does not exist"), e.what());
    }
  }

  // Where the checkpoint before a damaged one is damaged too, the error says neither is
  // whole and gives no advice to remove the newest, which would leave nothing to go on from.
  void aDamagedCheckpointBeforeTheLatestIsNotRecommended() {
    QTemporaryDir dir;
    const std::string run = dir.filePath("run").toStdString();
    std::filesystem::copy(m_reference.path().toStdString(), run, std::filesystem::copy_options::recursive);
    QVERIFY(QFile::resize(dir.filePath("run/checkpoints/step-000000020/member-0.pt"), 100));
    QVERIFY(QFile::resize(dir.filePath("run/checkpoints/step-000000018/member-1.pt"), 0));
    try {
      Trainer::open(run, testing::syntheticData());
      QFAIL("a damaged checkpoint was accepted");
    } catch (const CheckpointError& e) {
      const QString message = e.what();
      QVERIFY2(message.contains("step-000000018, cannot be used either") && message.contains("neither is whole") &&
                   message.contains("member-1.pt is truncated") && !message.contains("remove the damaged"),
               e.what());
    }
  }

  void onlyTheNewestCheckpointsAreKept() {
    const QStringList folders = QDir(m_reference.filePath("checkpoints")).entryList({"step-*"}, QDir::Dirs);
    QCOMPARE(folders, (QStringList{"step-000000018", "step-000000020"}));
    QVERIFY(QDir(m_reference.filePath("checkpoints")).entryList({".incomplete-*"}, QDir::Dirs | QDir::Hidden).isEmpty());
  }
};

QTEST_APPLESS_MAIN(TestCheckpointResume)
#include "TestCheckpointResume.moc"
