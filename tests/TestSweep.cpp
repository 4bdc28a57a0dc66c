// SPDX-License-Identifier: GPL-3.0-or-later
// Sweeps (core/runs/Sweep.h, `ensemble-lab-cli sweep`): the plan covers the grid, a bad
// grid is refused by name before any job starts, a failed job is recorded while the others
// train, and a sweep killed mid-job resumes to the uninterrupted sweep's results.
#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <set>
#include <tuple>

#include "core/common/Error.h"
#include "core/config/ConfigFields.h"
#include "core/runs/Sweep.h"
#include "tests/IdxSplitFiles.h"
#include "tests/JsonFile.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

struct Result {
  int exitCode = -1;
  QString err;
};

Result runCli(const QStringList& arguments, const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
              const QString& workingDirectory = {}) {
  QProcess process;
  process.setProcessEnvironment(environment);
  if (!workingDirectory.isEmpty()) process.setWorkingDirectory(workingDirectory);
  process.start(ENSEMBLELAB_CLI_PATH, arguments);
  if (!process.waitForFinished(600000)) return {-1, "timed out"};
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromUtf8(process.readAllStandardError())};
}

/// Runs the CLI with `arguments` and sends it SIGINT once its stderr has said `line`: its exit
/// code (-1 where it did not exit normally or did not say the line) and all it wrote to stderr.
Result interruptedOnceItSays(const QStringList& arguments, const QString& line) {
  QProcess process;
  process.setReadChannel(QProcess::StandardError);  // what waitForReadyRead waits for
  process.start(ENSEMBLELAB_CLI_PATH, arguments);
  if (!process.waitForStarted()) return {-1, "did not start"};
  QByteArray err;
  QDeadlineTimer deadline(120000);
  while (!(err += process.readAllStandardError()).contains(line.toUtf8())) {
    if (deadline.hasExpired() || !process.waitForReadyRead(int(std::max<qint64>(1, deadline.remainingTime())))) {
      process.kill();
      process.waitForFinished();
      return {-1, "did not say '" + line + "' in 120 s: " + QString::fromUtf8(err + process.readAllStandardError())};
    }
  }
  ::kill(pid_t(process.processId()), SIGINT);
  if (!process.waitForFinished(120000)) return {-1, "did not end in 120 s after SIGINT"};
  err += process.readAllStandardError();
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(err)};
}

using testing::readJson;

QStringList statuses(const QString& sweep) {
  QStringList list;
  for (const QJsonValue job : readJson(sweep + "/sweep.json")["jobs"].toArray()) {
    list << job.toObject()["status"].toString();
  }
  return list;
}

QStringList jobNames(const QString& sweep) {
  QStringList list;
  for (const QJsonValue job : readJson(sweep + "/sweep.json")["jobs"].toArray()) list << job.toObject()["name"].toString();
  return list;
}

const QStringList kTiny{"--dataset", "synthetic", "--mode", "single", "--train-limit", "256", "--test-limit",
                        "100",       "--batch-size", "32"};

/// kTiny without the flags of the settings `arguments`' grids set: sweep refuses a flag for a
/// setting a grid sets too.
QStringList tinyBeside(const QStringList& arguments) {
  QStringList tiny;
  for (int i = 0; i + 1 < kTiny.size(); i += 2) {
    bool gridSetsIt = false;
    for (int a = 0; a + 1 < arguments.size(); ++a) {
      if (arguments[a] != "--grid") continue;
      for (const QString& setting : arguments[a + 1].section('=', 0, 0).split(',')) {  // "batch_size,lr=…" pairs
        const std::string name = setting.toStdString();
        const ConfigField* field = configFieldByKey(name) ? configFieldByKey(name) : configFieldByFlag(name);
        gridSetsIt = gridSetsIt || (field && kTiny[i] == QString("--") + field->flag);
      }
    }
    if (!gridSetsIt) tiny << kTiny[i] << kTiny[i + 1];
  }
  return tiny;
}

/// The message of the ConfigError `action` throws, in the CLI's words; "" when none.
template <typename Action>
QString refusal(Action action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return QString::fromStdString(phraseMessage(e.what(), FieldNaming::Flags));
  }
  return {};
}

}  // namespace

class TestSweep final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

 private slots:
  void thePlanIsEveryCombinationFirstAxisSlowest() {
    const std::vector<SweepAxis> grid{parseSweepAxis("lr=0.05,0.1"), parseSweepAxis("mode=single,ensemble"),
                                      parseSweepAxis("seed=0,1,2")};
    const Sweep sweep = planSweep(testing::smallConfig("single", "cpu"), grid);
    QCOMPARE(sweep.jobs.size(), std::size_t(12));
    std::set<std::string> seen, names;
    for (std::size_t i = 0; i < sweep.jobs.size(); ++i) {
      const SweepJob& job = sweep.jobs[i];
      const ExperimentConfig config = sweep.configOf(job);
      QCOMPARE(config.learningRate, i < 6 ? 0.05 : 0.1);
      QCOMPARE(modeName(config.mode), std::string((i / 3) % 2 ? "ensemble" : "single"));
      QCOMPARE(config.seed, std::uint64_t(i % 3));
      QCOMPARE(config.batchSize, testing::smallConfig("single", "cpu").batchSize);  // the base's
      seen.insert(job.settings.dump());
      names.insert(job.name);
      QCOMPARE(job.status, JobStatus::Pending);
    }
    QCOMPARE(seen.size(), std::size_t(12));
    QCOMPARE(names.size(), std::size_t(12));
    QCOMPARE(sweep.jobs[7].name, std::string("008-lr=0.1-mode=single-seed=1"));
    // sweep.json reads back as written; a job name that leaves the sweep's folder is refused
    // (resuming removes a job's folder when it has no checkpoint).
    QCOMPARE(Sweep::fromJson(sweep.toJson(), "test").toJson(), sweep.toJson());
    for (const char* name : {"..", ".", "../runs", ""}) {
      nlohmann::json edited = sweep.toJson();
      edited["jobs"][0]["name"] = name;
      QVERIFY2(!refusal([&] { Sweep::fromJson(edited, "sweep.json"); }).isEmpty(), name);
    }
    // A sweep.json edited by hand to set a key twice is refused, naming the key.
    QTemporaryDir edited;
    std::string twice = sweep.toJson().dump();
    twice.insert(twice.size() - 1, ",\"jobs\":[]");
    QVERIFY(testing::writeFile(edited.filePath("sweep.json"), QByteArray::fromStdString(twice)));
    QVERIFY2(refusal([&] { readSweep(edited.path().toStdString()); }).contains("sets \"jobs\" twice"),
             qPrintable(refusal([&] { readSweep(edited.path().toStdString()); })));
    // One far larger than any sweep writes is refused before it is read (100 MiB, sparse).
    {
      QFile huge(edited.filePath("sweep.json"));
      QVERIFY(huge.resize(100 * 1024 * 1024));
      const QString message = refusal([&] { readSweep(edited.path().toStdString()); });
      QVERIFY2(message.contains("sweep.json is 100 MiB, where a sweep.json is kilobytes"), qPrintable(message));
    }
    // A damaged sweep.json is named in plain words, with what to do; none of the JSON
    // library's own text ("[json.exception.out_of_range.403] key 'base' not found").
    const std::pair<const char*, const char*> damaged[] = {
        {"{bad", "sweep.json: it is not valid JSON (at byte 2); fix it, or start a new sweep"},
        {"{\"format\": 1, \"grid\": [], \"jobs\": []}", "(it has no \"base\"); fix it"},
        {"{\"format\": 1, \"base\": {}, \"grid\": [], \"jobs\": \"x\"}", "(\"jobs\" is not a list)"}};
    for (const auto& [text, expected] : damaged) {
      QVERIFY(testing::writeFile(edited.filePath("sweep.json"), text));
      const QString message = refusal([&] { readSweep(edited.path().toStdString()); });
      QVERIFY2(message.contains(expected) && !message.contains("json.exception"), qPrintable(message));
    }
    // A setting by its flag, a folder path as a value: a folder name without separators.
    const Sweep paths = planSweep(ExperimentConfig{}, {parseSweepAxis("batch-size=64"), parseSweepAxis("dataset=/data/a b")});
    QCOMPARE(paths.jobs[0].name, std::string("001-batch_size=64-dataset=_data_a_b"));
    QCOMPARE(paths.configOf(paths.jobs[0]).dataset, std::string("/data/a b"));
    // A value is named as it was typed.
    QCOMPARE(planSweep(ExperimentConfig{}, {parseSweepAxis("lr=1e9")}).jobs[0].name, std::string("001-lr=1e9"));
  }

  // Settings paired in one axis move together (d2l 13.6 scales the learning rate with the
  // batch): two points make two jobs, not the four of two axes, each named by both values.
  void pairedSettingsMoveTogether() {
    const Sweep sweep = planSweep(testing::smallConfig("single", "cpu"),
                                  {parseSweepAxis("batch-size,lr=256:0.1,512:0.2"), parseSweepAxis("seed=0,1")});
    QCOMPARE(sweep.jobs.size(), std::size_t(4));
    for (std::size_t i = 0; i < sweep.jobs.size(); ++i) {
      const ExperimentConfig config = sweep.configOf(sweep.jobs[i]);
      QCOMPARE(config.batchSize, int64_t(i < 2 ? 256 : 512));
      QCOMPARE(config.learningRate, i < 2 ? 0.1 : 0.2);
      QCOMPARE(config.seed, std::uint64_t(i % 2));
    }
    QCOMPARE(sweep.jobs[2].name, std::string("003-batch_size=512-lr=0.2-seed=0"));
    // sweep.json: a pair as "keys" and points, a lone setting as every older sweep.json has
    // it ("key"); both read back as written.
    const nlohmann::json json = sweep.toJson();
    QCOMPARE(json["grid"][0]["keys"], nlohmann::json({"batch_size", "lr"}));
    QCOMPARE(json["grid"][0]["values"][1], nlohmann::json({512, 0.2}));
    QCOMPARE(json["grid"][1]["key"], nlohmann::json("seed"));
    QCOMPARE(Sweep::fromJson(json, "test").toJson(), json);
    nlohmann::json edited = json;
    edited["grid"][0]["values"][1] = nlohmann::json::array({512});
    const QString short_ = refusal([&] { Sweep::fromJson(edited, "sweep.json"); });
    QVERIFY2(short_.contains("grid batch_size,lr gives 1 of its 2 values in a point"), qPrintable(short_));
    // A point splits at its last colons: a value that holds one (a device) goes first.
    const SweepAxis devices = parseSweepAxis("devices,lr=cuda:1:0.1,cuda*2:0.2");
    QCOMPARE(devices.points[0], (std::vector<nlohmann::json>{"cuda:1", 0.1}));
    QCOMPARE(devices.points[1], (std::vector<nlohmann::json>{"cuda*2", 0.2}));
  }

  // A paired sweep through the CLI: each job trains with its pair, and sweep --resume reads
  // the pairs back from sweep.json.
  void aPairedSweepTrainsEachPair() {
    const QString out = m_dir.filePath("paired");
    const QStringList grid{"--grid", "batch-size,lr=32:0.05,64:0.1"};
    Result r = runCli(QStringList{"sweep", "--out", out, "--epochs", "1"} + grid + tinyBeside(grid));
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(jobNames(out), (QStringList{"001-batch_size=32-lr=0.05", "002-batch_size=64-lr=0.1"}));
    for (const auto& [job, batch, lr] : {std::tuple{"001-batch_size=32-lr=0.05", 32, 0.05}, {"002-batch_size=64-lr=0.1", 64, 0.1}}) {
      const QJsonObject config = readJson(out + "/" + job + "/config.json");
      QCOMPARE(config["batch_size"].toInt(), batch);
      QCOMPARE(config["lr"].toDouble(), lr);
    }
    r = runCli({"sweep", "--resume", out});
    QVERIFY2(r.exitCode == 0 && r.err.count("completed") >= 2, qPrintable(r.err));
  }

  // --seed and --grid seed= take config.json's whole range (a uint64); past it the
  // message names the maximum.
  void aSeedTakesTheWholeRangeConfigJsonTakes() {
    const Sweep sweep = planSweep(testing::smallConfig("single", "cpu"),
                                  {parseSweepAxis("seed=9223372036854775808,18446744073709551615")});
    QCOMPARE(sweep.configOf(sweep.jobs[0]).seed, std::uint64_t(9223372036854775808ULL));
    QCOMPARE(sweep.configOf(sweep.jobs[1]).seed, std::uint64_t(18446744073709551615ULL));
    for (const char* text : {"18446744073709551616", "-1", "+1"}) {
      const QString message = refusal([&] { parseSweepAxis(std::string("seed=") + text); });
      QVERIFY2(message.contains("expects a non-negative integer, at most 18446744073709551615"), qPrintable(message));
    }
  }

  void aBadGridIsRefusedNamingIt_data() {
    QTest::addColumn<QStringList>("grid");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unknown setting") << QStringList{"lrate=0.1"} << "'lrate' is not a setting (did you mean lr?); the settings are dataset,";
    QTest::newRow("a setting nothing like one") << QStringList{"colour=1"} << "'colour' is not a setting; the settings are dataset,";
    QTest::newRow("not key=values") << QStringList{"lr"} << "sweep grid 'lr' is not SETTING=VALUE";
    QTest::newRow("invalid value") << QStringList{"momentum=0.5,1.5"}
                                   << "sweep job 002-momentum=1.5 (momentum=1.5): momentum must be in [0, 1), got 1.5";
    QTest::newRow("unknown mode") << QStringList{"mode=single,parallel"} << "unknown mode 'parallel'";
    QTest::newRow("wrong kind") << QStringList{"batch-size=32,1.5"} << "sweep grid batch_size=1.5: --batch-size expects an integer, got '1.5'";
    QTest::newRow("empty value") << QStringList{"lr=0.1,"} << "has an empty value for lr";
    QTest::newRow("a pair short of a value") << QStringList{"batch_size,lr=32:0.1,64"}
                                             << "'64' gives 1 of the 2 values of batch_size,lr; give one for each, joined by ':'";
    QTest::newRow("a colon in a value after the first") << QStringList{"lr,devices=0.1:cuda:1"}
                                                        << "(a point is cut at its last colons, so only the first setting's "
                                                           "value may hold one: name the setting whose values hold ':' first)";
    QTest::newRow("a setting twice in a pair") << QStringList{"lr,lr=0.1:0.2"} << "sweep grid 'lr,lr=0.1:0.2' names lr twice";
    QTest::newRow("an invalid value in a pair")
        << QStringList{"batch_size,momentum=32:0.5,64:1.5"}
        << "sweep job 002-batch_size=64-momentum=1.5 (batch_size=64 momentum=1.5): momentum must be in [0, 1), got 1.5";
  }

  void aBadGridIsRefusedNamingIt() {
    QFETCH(QStringList, grid);
    QFETCH(QString, expected);
    const QString message = refusal([&] {
      std::vector<SweepAxis> axes;
      for (const QString& axis : grid) axes.push_back(parseSweepAxis(axis.toStdString()));
      planSweep(ExperimentConfig{}, axes);
    });
    QVERIFY2(message.contains(expected), qPrintable(message));
    // The CLI says the same and starts nothing.
    const QString out = m_dir.filePath("refused-" + QString(QTest::currentDataTag()).replace(' ', '-'));
    QStringList arguments{"sweep", "--out", out};
    for (const QString& axis : grid) arguments << "--grid" << axis;
    const Result r = runCli(arguments + tinyBeside(arguments));
    QVERIFY2(r.exitCode == 1 && r.err.contains(expected), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
  }

  // A job that could not train (a batch larger than its training set, a dataset that is
  // not there) is refused before any job trains, named with the reason: it had failed only
  // when its turn came, after the jobs before it trained.
  void aJobThatCannotTrainIsRefusedBeforeAnyTrains_data() {
    QTest::addColumn<QStringList>("grid");
    QTest::addColumn<QString>("expected");
    // kTiny gives --train-limit 256.
    QTest::newRow("batch over the train limit")
        << QStringList{"batch_size=32,512"}
        << "sweep job 002-batch_size=512: batch size 512 is larger than the 256 training samples; use a smaller "
           "--batch-size or a larger --train-limit";
    QTest::newRow("dataset missing") << QStringList{"dataset=synthetic," + m_dir.filePath("no-such-dataset")}
                                     << "sweep job 002-dataset=";
  }
  void aJobThatCannotTrainIsRefusedBeforeAnyTrains() {
    QFETCH(QStringList, grid);
    QFETCH(QString, expected);
    const QString out = m_dir.filePath("cannot-train-" + QString(QTest::currentDataTag()).replace(' ', '-'));
    QStringList arguments{"sweep", "--out", out};
    for (const QString& axis : grid) arguments << "--grid" << axis;
    const Result r = runCli(arguments + tinyBeside(arguments));
    QVERIFY2(r.exitCode == 1 && r.err.contains(expected), qPrintable(r.err));
    QVERIFY2(!r.err.contains("job 1 of"), qPrintable(r.err));  // nothing trained
    QVERIFY(!QFileInfo::exists(out));
  }

  // A train flag for a setting a grid also sets would be replaced by the grid's values in
  // every job without a word: a usage error (exit 2) naming both, whichever name the grid
  // uses (flag or key), and nothing is written.
  void aFlagForASettingTheGridSetsIsRefused_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("lr") << QStringList{"--grid", "lr=0.1,0.2", "--lr", "0.3"}
                        << "--grid lr=0.1,0.2 and --lr 0.3 both set lr; drop one of the two";
    QTest::newRow("paired") << QStringList{"--grid", "momentum,lr=0.9:0.1,0.5:0.2", "--lr", "0.3"}
                            << "--grid momentum,lr=0.9:0.1,0.5:0.2 and --lr 0.3 both set lr; drop one of the two";
    // kTiny gives --train-limit 256.
    QTest::newRow("by its key") << QStringList{"--grid", "train_limit=128,256"}
                                << "--grid train_limit=128,256 and --train-limit 256 both set train_limit; drop one of the two";
  }
  void aFlagForASettingTheGridSetsIsRefused() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const QString out = m_dir.filePath("flag-and-grid-" + QString(QTest::currentDataTag()).replace(' ', '-'));
    const Result r = runCli(QStringList{"sweep", "--out", out, "--epochs", "1"} + arguments + kTiny);
    QVERIFY2(r.exitCode == 2 && r.err.contains(expected), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
  }

  // One setting in two grids: planSweep refuses it (the window's dialog says so), and the CLI
  // as a usage error naming both (exit 2, as for a value given twice; it was 1).
  // The same for a key of --config's file: the grid's values had replaced the file's lr in
  // every job while sweep.json's base kept saying the file's.
  void aConfigKeyTheGridSetsIsRefused() {
    const QString config = m_dir.filePath("lr-0.05.json");
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"dataset": "synthetic", "epochs": 1, "mode": "single", "lr": 0.05})");
    file.close();
    const QString out = m_dir.filePath("config-and-grid");
    const Result r = runCli({"sweep", "--config", config, "--grid", "lr=0.01,0.03", "--out", out});
    QVERIFY2(r.exitCode == 2 && r.err.contains("--grid lr=0.01,0.03 and --config " + config +
                                               " (\"lr\": 0.05) both set lr; drop one of the two"),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
  }

  void aSettingInTwoGridsIsRefused() {
    const QString message = refusal([] { planSweep(ExperimentConfig{}, {parseSweepAxis("lr=0.1"), parseSweepAxis("lr=0.2")}); });
    QVERIFY2(message.contains("sweep grid sets lr twice"), qPrintable(message));
    const QString out = m_dir.filePath("two-grids");
    const Result r = runCli(QStringList{"sweep", "--out", out, "--epochs", "1", "--grid", "lr=0.1", "--grid", "lr=0.2"} + kTiny);
    QVERIFY2(r.exitCode == 2 && r.err.contains("--grid lr=0.1 and --grid lr=0.2 both set lr; give its values in one --grid"),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
    // Alone in one grid and paired in another.
    const QString paired = refusal([] {
      planSweep(ExperimentConfig{}, {parseSweepAxis("momentum,lr=0.9:0.1"), parseSweepAxis("lr=0.2")});
    });
    QVERIFY2(paired.contains("sweep grid sets lr twice"), qPrintable(paired));
    const Result pairedCli =
        runCli(QStringList{"sweep", "--out", out, "--epochs", "1", "--grid", "momentum,lr=0.9:0.1", "--grid", "lr=0.2"} + kTiny);
    QVERIFY2(pairedCli.exitCode == 2 && pairedCli.err.contains("--grid momentum,lr=0.9:0.1 and --grid lr=0.2 both set lr; "
                                                               "a setting is in one --grid only"),
             qPrintable(pairedCli.err));
    QVERIFY(!QFileInfo::exists(out));
  }

  // sweep --resume runs the settings its sweep.json records: a setting's flag beside it would
  // change nothing, and is refused as a usage error (it was dropped without a word).
  void aSettingsFlagBesideResumeIsRefused() {
    const Result r = runCli({"sweep", "--resume", m_dir.filePath("no-such-sweep"), "--lr", "5"});
    QVERIFY2(r.exitCode == 2 && r.err.contains("--lr would change nothing: give --resume DIR alone"), qPrintable(r.err));
  }

  // A sweep folder that is not there is said to be missing (it had read "holds no sweep
  // (no sweep.json)", as of a folder that exists); one without sweep.json says that.
  void resumingASweepThatIsNotThereSaysWhy() {
    Result r = runCli({"sweep", "--resume", m_dir.filePath("no-such-sweep")});
    QVERIFY2(r.exitCode == 1 && r.err.contains("sweep folder " + m_dir.filePath("no-such-sweep") + " does not exist"),
             qPrintable(r.err));
    r = runCli({"sweep", "--resume", m_dir.path()});
    QVERIFY2(r.exitCode == 1 && r.err.contains("holds no sweep (no sweep.json)"), qPrintable(r.err));
  }

  // A value given twice in one grid, compared as parsed (0.1 and 0.10 are one number), would
  // train the same job twice: planSweep refuses it naming the value (the window's dialog
  // says so), and the CLI as a usage error (exit 2), writing nothing.
  void aValueGivenTwiceInAGridIsRefused_data() {
    QTest::addColumn<QString>("grid");
    QTest::addColumn<QString>("expected");
    QTest::newRow("one number written two ways") << "lr=0.1,0.10" << "sweep grid lr gives 0.1 twice (as 0.1 and 0.10)";
    QTest::newRow("the same text") << "seed=0,1,0" << "sweep grid seed gives 0 twice, which would train the same job twice";
    QTest::newRow("a pair twice") << "momentum,lr=0.9:0.1,0.9:0.10"
                                  << "sweep grid momentum,lr gives 0.9:0.1 twice (as 0.9:0.1 and 0.9:0.10)";
  }
  void aValueGivenTwiceInAGridIsRefused() {
    QFETCH(QString, grid);
    QFETCH(QString, expected);
    const QString message = refusal([&] { planSweep(ExperimentConfig{}, {parseSweepAxis(grid.toStdString())}); });
    QVERIFY2(message.contains(expected), qPrintable(message));
    const QString out = m_dir.filePath("value-twice-" + QString(QTest::currentDataTag()).replace(' ', '-'));
    const Result r = runCli(QStringList{"sweep", "--out", out, "--epochs", "1", "--grid", grid} + kTiny);
    QVERIFY2(r.exitCode == 2 && r.err.contains(expected), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
  }

  // Settings that are each valid but clash with the devices, or a file that is not there,
  // are refused before the first job trains, naming the job: no sweep folder is written.
  void aJobThatCannotStartIsRefusedBeforeAnyTrains_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::newRow("mode against devices") << QStringList{"--grid", "mode=ensemble,single", "--devices", "cpu*2"}
                                          << "sweep job 002-mode=single: single mode trains one model on one device";
    QTest::newRow("devices against mode") << QStringList{"--grid", "devices=cpu,cpu*2"}
                                          << "sweep job 002-devices=cpu_2: single mode trains one model on one device";
    QTest::newRow("a missing init_from file") << QStringList{"--grid", "init_from=" + m_dir.filePath("none.pt")}
                                              << "--init-from " + m_dir.filePath("none.pt") + ": cannot open it";
    QTest::newRow("a checkpoint's optimizer state as init_from")
        << QStringList{"--grid", "init_from=" + m_dir.filePath("step-000000008/member-1-optimizer.pt")}
        << "holds a checkpoint's optimizer state (momentum buffers), not weights; give the weights beside it, " +
               m_dir.filePath("step-000000008/member-1.pt");
  }

  void aJobThatCannotStartIsRefusedBeforeAnyTrains() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    const QString out = m_dir.filePath("clash-" + QString(QTest::currentDataTag()).replace(' ', '-'));
    const Result r = runCli(QStringList{"sweep", "--out", out, "--epochs", "1"} + arguments + tinyBeside(arguments));
    QVERIFY2(r.exitCode == 1 && r.err.contains(expected) && !r.err.contains("job 1 of"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
  }

  // A completed job whose run folder was removed trains again on --resume, rather than
  // being reported completed with no score.
  void aCompletedJobWhoseFolderIsGoneTrainsAgain() {
    const QString out = m_dir.filePath("removed");
    QCOMPARE(runCli(QStringList{"sweep", "--grid", "seed=0,1", "--epochs", "1", "--out", out} + kTiny).exitCode, 0);
    const QStringList names = jobNames(out);
    QVERIFY(QDir(out + "/" + names[0]).removeRecursively());
    const Result r = runCli({"sweep", "--resume", out});
    QVERIFY2(r.exitCode == 0 && r.err.contains("its run folder is gone; training it again"), qPrintable(r.err));
    QCOMPARE(statuses(out), (QStringList{"completed", "completed"}));
    QVERIFY(QFileInfo::exists(out + "/" + names[0] + "/summary.json"));
    QVERIFY2(r.err.contains("test accuracy"), qPrintable(r.err));
  }

  void aFailedJobIsRecordedAndTheOthersTrain() {
    const QString out = m_dir.filePath("failing");
    // A learning rate of a million diverges as its job trains: no check before can tell.
    const Result r = runCli(QStringList{"sweep", "--grid", "batch-size=32,64", "--grid", "lr=0.05,1e6", "--epochs", "1",
                                        "--out", out} +
                            kTiny.mid(0, 8));
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(statuses(out), (QStringList{"completed", "failed", "completed", "failed"}));
    const QJsonObject failed = readJson(out + "/sweep.json")["jobs"].toArray()[1].toObject();
    QVERIFY2(failed["message"].toString().contains("learning rate"), qPrintable(failed["message"].toString()));
    // settings named by their config.json keys, as summary.json does: no {{mention}} left
    QVERIFY2(failed["message"].toString().contains("smaller lr") && !failed["message"].toString().contains("{{"),
             qPrintable(failed["message"].toString()));
    const QStringList names = jobNames(out);
    const QJsonObject third = readJson(out + "/" + names[2] + "/config.json");
    QCOMPARE(third["lr"].toDouble(), 0.05);
    QCOMPARE(third["batch_size"].toInt(), 64);
    QVERIFY(QFileInfo::exists(out + "/" + names[2] + "/summary.json"));
    QVERIFY2(r.err.contains(names[3]) && r.err.contains("failed"), qPrintable(r.err));  // the closing table
    // Read back by --resume, the reason is said in flags, as when the job failed (it was
    // sweep.json's keys: "try a smaller lr").
    const Result again = runCli({"sweep", "--resume", out});
    QCOMPARE(again.exitCode, 1);
    QVERIFY2(again.err.contains("failed last time (") && again.err.contains("try a smaller --lr") &&
                 !again.err.contains("smaller lr"),
             qPrintable(again.err));
  }

  void aFailedJobIsTriedAgainOnResumeFromAnyFolder() {
    // Job 2's dataset folder, given relative to where the sweep started, is cut short (its
    // images end early; the header, which the sweep checks first, is whole): the job fails
    // as it loads. Once mended, `sweep --resume` run from another folder tries the job again,
    // and finds the data: sweep.json holds the folder as an absolute path.
    const QString started = m_dir.filePath("started-here"), elsewhere = m_dir.filePath("elsewhere");
    const QString out = m_dir.filePath("retried");
    QVERIFY(QDir().mkpath(started + "/data") && QDir().mkpath(elsewhere));
    const auto writeData = [](const QString& folder) {
      idx_files::writeIdxSplit(folder, "train", {256, 28, 28, 10});
      idx_files::writeIdxSplit(folder, "t10k", {100, 28, 28, 10});
    };
    writeData(started + "/data");
    QVERIFY(QDir().mkpath(started + "/later"));
    writeData(started + "/later");
    QVERIFY(QFile::resize(started + "/later/train-images-idx3-ubyte", 16 + 28 * 28 * 10));  // 10 of 256 images
    const QStringList tiny{"--mode", "single", "--batch-size", "32", "--epochs", "1"};
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    const Result first = runCli(QStringList{"sweep", "--grid", "dataset=data,later", "--out", out} + tiny, environment, started);
    QCOMPARE(first.exitCode, 1);
    QCOMPARE(statuses(out), (QStringList{"completed", "failed"}));
    QVERIFY2(first.err.contains("later/train-images-idx3-ubyte"), qPrintable(first.err));

    writeData(started + "/later");
    const Result resumed = runCli({"sweep", "--resume", out}, environment, elsewhere);
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY2(resumed.err.contains("failed last time") && resumed.err.contains("trying it again"), qPrintable(resumed.err));
    QCOMPARE(statuses(out), (QStringList{"completed", "completed"}));

    // The same for a dataset every job shares (--dataset, the sweep's base settings).
    const QString shared = m_dir.filePath("shared-dataset");
    QCOMPARE(runCli(QStringList{"sweep", "--dataset", "data", "--grid", "seed=0", "--out", shared} + tiny, environment, started)
                 .exitCode,
             0);
    QCOMPARE(readJson(shared + "/sweep.json")["base"].toObject()["dataset"].toString(),
             QFileInfo(started + "/data").absoluteFilePath());

    // And for init_from's files, given relative (as --init-from, or a grid's values): a job
    // retried from another folder had not found them ("runs/ensemble: cannot open it").
    QCOMPARE(runCli(QStringList{"train", "--dataset", "data", "--out", "first"} + tiny, environment, started).exitCode, 0);
    const QString initialised = m_dir.filePath("init-from-relative");
    QCOMPARE(runCli(QStringList{"sweep", "--dataset", "data", "--init-from", "first", "--grid", "seed=0", "--out", initialised} +
                        tiny,
                    environment, started)
                 .exitCode,
             0);
    const QString earlierRun = QFileInfo(started + "/first").absoluteFilePath();
    QCOMPARE(readJson(initialised + "/sweep.json")["base"].toObject()["init_from"].toString(), earlierRun);
    QCOMPARE(readJson(initialised + "/" + jobNames(initialised)[0] + "/config.json")["init_from"].toString(), earlierRun);
    const QString gridded = m_dir.filePath("init-from-grid");
    QCOMPARE(runCli(QStringList{"sweep", "--dataset", "data", "--grid", "init_from=first", "--out", gridded} + tiny, environment,
                    started)
                 .exitCode,
             0);
    QCOMPARE(readJson(gridded + "/" + jobNames(gridded)[0] + "/config.json")["init_from"].toString(), earlierRun);
  }

  void aSweepIsNotWrittenIntoARunOrAFolderOfOtherFiles() {
    const QString run = m_dir.filePath("a-run"), notes = m_dir.filePath("notes");
    QVERIFY(QDir().mkpath(run) && QDir().mkpath(notes));
    for (const auto& [file, text] : {std::pair{run + "/config.json", "{}"}, std::pair{notes + "/todo.txt", "mine"}}) {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly) && f.write(text) > 0);
    }
    for (const auto& [folder, why] : {std::pair{run, "is a run folder"}, std::pair{notes, "already holds files"}}) {
      const Result r = runCli(QStringList{"sweep", "--grid", "seed=0,1", "--epochs", "1", "--out", folder} + kTiny);
      QVERIFY2(r.exitCode == 1 && r.err.contains(why) && r.err.contains("choose another --out"), qPrintable(r.err));
      QVERIFY(!QFileInfo::exists(folder + "/sweep.json"));
      QCOMPARE(QDir(folder).entryList(QDir::NoDotAndDotDot | QDir::AllEntries).size(), 1);
    }
  }

  // A sweep folder that cannot be made says why (on a read-only disk it had said "cannot
  // create .../sweep.json: No such file or directory"). Needs root for a read-only mount.
  void aSweepFolderThatCannotBeMadeSaysWhy() {
    const QString readOnly = m_dir.filePath("read-only");
    QVERIFY(QDir().mkpath(readOnly));
    const QString mountReadOnly = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && ";
    QProcess probe;
    probe.start("unshare", {"-m", "sh", "-c", mountReadOnly + "! touch \"$1\"/probe 2>/dev/null", "sh", readOnly});
    if (!probe.waitForFinished(30000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) {
      QSKIP("no read-only mount here (needs root and unshare)");
    }
    QProcess sweep;
    sweep.start("unshare", QStringList{"-m", "sh", "-c", mountReadOnly + "exec \"$0\" sweep --grid seed=0,1 --epochs 1 --out \"$1\"/sweep " +
                                                             kTiny.join(' '),
                                       ENSEMBLELAB_CLI_PATH, readOnly});
    QVERIFY(sweep.waitForFinished(120000));
    const QString err = QString::fromUtf8(sweep.readAllStandardError());
    QVERIFY2(sweep.exitCode() == 1 && err.contains("cannot create sweep folder " + readOnly + "/sweep: Read-only file system") &&
                 err.contains("choose a folder you can write to (--out DIR)"),
             qPrintable(err));
  }

  void aSignalBetweenJobsStopsTheSweep() {
    // SIGINT as job 2 starts (it loads Fashion-MNIST, so it is most likely still loading):
    // no run is training yet, and the sweep must stop all the same, resumable.
    const QString out = m_dir.filePath("signalled");
    const Result stopped = interruptedOnceItSays({"sweep", "--grid", "dataset=synthetic,fashion-mnist", "--out", out,
                                                  "--epochs", "1", "--mode", "single", "--train-limit", "256",
                                                  "--test-limit", "100", "--batch-size", "32"},
                                                 "job 2 of 2");
    QVERIFY2(stopped.exitCode == 130, qPrintable(stopped.err));
    QVERIFY2(stopped.err.contains("sweep stopped; continue it with"), qPrintable(stopped.err));
    QVERIFY(statuses(out)[1] != "completed");

    const Result resumed = runCli({"sweep", "--resume", out});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QCOMPARE(statuses(out), (QStringList{"completed", "completed"}));
  }

  // A second process on a sweep that one runs (a `sweep --resume` typed twice) is refused
  // before it reads or writes anything: the two had each marked the other's job failed.
  void aSweepRunningElsewhereIsRefused() {
    const QString out = m_dir.filePath("held");
    QProcess first;
    first.start(ENSEMBLELAB_CLI_PATH, QStringList{"sweep", "--grid", "seed=0,1,2", "--out", out, "--epochs", "30"} + kTiny);
    QVERIFY(first.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += first.readAllStandardError()).contains("job 1 of 3"), 120000);
    const Result second = runCli({"sweep", "--resume", out});
    const bool firstStillRuns = first.state() == QProcess::Running;
    ::kill(pid_t(first.processId()), SIGINT);
    QVERIFY(first.waitForFinished(120000));
    QVERIFY2(firstStillRuns, "the first sweep ended before the second was tried: train longer");
    QVERIFY2(second.exitCode == 1 && second.err.contains("sweep " + out + " is being run by another process") &&
                 second.err.contains("ensemble-lab-cli sweep --resume " + out),
             qPrintable(second.err));
    QVERIFY2(!statuses(out).contains("failed"), qPrintable(statuses(out).join(",")));
    const Result asARun = runCli({"resume", "--run", out});  // the sweep's folder, not one of its runs
    QVERIFY2(asARun.exitCode == 2 && asARun.err.contains(out + " is a sweep folder: continue the sweep with "
                                                               "`ensemble-lab-cli sweep --resume " + out + "`"),
             qPrintable(asARun.err));
    // Once the first has stopped, the sweep goes on: its first job trains again, and is stopped
    // there (to finish its 90 epochs would only repeat the resume the tests above check: with
    // them this function took 105 s under ASan, without them 8 s).
    const Result resumed = interruptedOnceItSays({"sweep", "--resume", out}, "job 1 of 3");
    QVERIFY2(resumed.exitCode == 130 && !resumed.err.contains("is being run by another process"), qPrintable(resumed.err));
    QCOMPARE(statuses(out), (QStringList{"stopped", "pending", "pending"}));
  }

  // Killed (SIGKILL) while job 2 publishes its first checkpoint; `sweep --resume` keeps job 1
  // as it was, finishes job 2 and runs job 3, each with the uninterrupted sweep's numbers.
  void aKilledSweepResumesToTheUninterruptedResults() {
    const QStringList sweep = QStringList{"sweep", "--grid", "seed=0,1,2", "--epochs", "2"} + kTiny;
    const QString reference = m_dir.filePath("reference"), killed = m_dir.filePath("killed");
    QCOMPARE(runCli(sweep + QStringList{"--out", reference}).exitCode, 0);

    QProcessEnvironment crash = QProcessEnvironment::systemEnvironment();
    crash.insert("ENSEMBLELAB_CRASH_AT", "checkpoint-published:3");  // job 1 publishes 2 (one per epoch)
    const Result r = runCli(sweep + QStringList{"--out", killed}, crash);
    QCOMPARE(r.exitCode, -1);  // killed
    QCOMPARE(statuses(killed), (QStringList{"completed", "running", "pending"}));
    const QStringList names = jobNames(killed);
    const QStringList firstJob = testing::readLines(killed + "/" + names[0] + "/metrics.csv");
    const QByteArray firstSummary = [&] {
      QFile f(killed + "/" + names[0] + "/summary.json");
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();

    const Result resumed = runCli({"sweep", "--resume", killed});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QCOMPARE(statuses(killed), (QStringList{"completed", "completed", "completed"}));
    QVERIFY2(!resumed.err.contains("job 1 of 3"), qPrintable(resumed.err));  // not trained again
    QFile summary(killed + "/" + names[0] + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    QCOMPARE(summary.readAll(), firstSummary);
    QCOMPARE(testing::readLines(killed + "/" + names[0] + "/metrics.csv"), firstJob);
    for (const QString& name : names) {
      QCOMPARE(testing::readLines(killed + "/" + name + "/metrics.csv"),
               testing::readLines(reference + "/" + name + "/metrics.csv"));
      QVERIFY(testing::sameLatestWeights((killed + "/" + name).toStdString(), (reference + "/" + name).toStdString()));
    }
    // A folder that holds a sweep is not overwritten by a new one.
    const Result again = runCli(sweep + QStringList{"--out", killed});
    QVERIFY2(again.exitCode == 1 && again.err.contains("already holds a sweep") && again.err.contains("--resume"),
             qPrintable(again.err));
  }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "TestSweep.moc"
