// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-cli end to end, as a user runs it: real Fashion-MNIST, real files, real
// processes and signals; every bad input exits non-zero with a message naming the problem.
#include <signal.h>

#include <QDir>
#include <QSet>
#include <filesystem>
#include <QMap>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/config/ConfigFields.h"
#include "core/devices/DeviceInventory.h"
#include "core/config/LearningRateSchedule.h"
#include "core/train/CudaGraphsBuilt.h"
#include "core/io/MetricsCsvReader.h"
#include "tests/JsonFile.h"
#include "tests/SettingSamples.h"
#include "tests/NpzWriter.h"
#include "tests/TestSupport.h"

namespace {

struct Result {
  int exitCode = -1;
  QString out, err;
};

Result runCli(const QStringList& arguments, int timeoutMs = 300000, const QString& workingDirectory = {});

/// Trains a single model for `epochs` on a new 64-image MNIST-format folder `data`, into `run`.
Result trainOnSmallFolder(const QString& data, const QString& run, int epochs) {
  if (!QDir().mkpath(data)) return {1, {}, "cannot make " + data};
  testing::writeMnistFolder(data, 64, 30, 16, 16, false);
  return runCli({"train", "--dataset", data, "--mode", "single", "--devices", "cpu", "--batch-size", "32", "--epochs",
                 QString::number(epochs), "--out", run});
}

/// `program` run with `arguments` and `environment` added to this test's own.
Result runProgram(const QString& program, const QStringList& arguments, const QMap<QString, QString>& environment = {},
                  int timeoutMs = 300000, const QString& workingDirectory = {}) {
  QProcess process;
  if (!workingDirectory.isEmpty()) process.setWorkingDirectory(workingDirectory);
  QProcessEnvironment variables = QProcessEnvironment::systemEnvironment();
  for (auto variable = environment.begin(); variable != environment.end(); ++variable) {
    variables.insert(variable.key(), variable.value());
  }
  process.setProcessEnvironment(variables);
  process.start(program, arguments);
  Result result;
  if (!process.waitForFinished(timeoutMs)) {
    process.kill();
    process.waitForFinished();
    result.err = "timed out";
    return result;
  }
  result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  result.out = QString::fromUtf8(process.readAllStandardOutput());
  result.err = QString::fromUtf8(process.readAllStandardError());
  return result;
}

Result runCli(const QStringList& arguments, int timeoutMs, const QString& workingDirectory) {
  return runProgram(ENSEMBLELAB_CLI_PATH, arguments, {}, timeoutMs, workingDirectory);
}

/// Makes `cwd` what the completion tests' paths complete from: a file (config.json) and two
/// folders (data, runs).
bool holdsWhatPathsCompleteFrom(const QTemporaryDir& cwd) {
  return testing::writeFile(cwd.filePath("config.json"), "{}") && QDir(cwd.path()).mkdir("data") &&
         QDir(cwd.path()).mkdir("runs");
}

/// What bash offers for `line` (up to the cursor, typed at a prompt in `cwd`) with the bash
/// completion the package installs, as bash's completion runs it.
QStringList bashCompletion(const QString& line, const QString& cwd) {
  QProcess bash;
  bash.setWorkingDirectory(cwd);
  const QString script = R"(source "$1"; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; _ensemble_lab_cli
                            printf '%s\n' "${COMPREPLY[@]}")";
  bash.start("bash", {"-c", script, "bash", ENSEMBLELAB_SOURCE_DIR "/packaging/ensemble-lab-cli.bash-completion", line});
  if (!bash.waitForFinished(60000) || bash.exitCode() != 0) return {"bash failed: " + bash.readAllStandardError()};
  return QString::fromUtf8(bash.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

/// Where a CUDA build finds no GPU, the reason is the CUDA runtime's own text for its error
/// (no driver, or a driver but no device); a CPU build says it has no CUDA.
void expectCudasOwnWords(const QString& why) {
#ifdef ENSEMBLELAB_WITH_CUDA
  static const QStringList cudasWords{"CUDA says: CUDA driver version is insufficient for CUDA runtime version",
                                      "CUDA says: no CUDA-capable device is detected"};
  QVERIFY2(cudasWords.contains(why), qPrintable(why));
#else
  QVERIFY2(why.contains("has no CUDA"), qPrintable(why));
#endif
}

using testing::readJson;

}  // namespace

class TestCli final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_realRun;

 private slots:
  // Every setting (tests/SettingSamples.h) through the real CLI: its flag, at a value other
  // than its default, reaches config.json as that value. A flag the records no longer
  // declare is refused (exit 2), and a record wired to the wrong member writes the default.
  void everySettingsFlagReachesConfigJson() {
    QTemporaryDir dir;
    QStringList arguments{"train", "--out", dir.filePath("run")};
    const auto samples = ensemble::testing::settingSamples();
    for (const auto& sample : samples) {
      if (sample.trainsOnTheCli) arguments << QString("--") + sample.flag << sample.text;
    }
    const Result r = runCli(arguments);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile file(dir.filePath("run/config.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json config = nlohmann::json::parse(file.readAll().toStdString());
    for (const auto& sample : samples) {
      if (sample.trainsOnTheCli) QVERIFY2(config.at(sample.key) == sample.value, sample.key);
    }
  }

  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_realRun = m_dir.filePath("fashion");
  }

  void trainsOnRealFashionMnistAndWritesTheRunFolder() {
    const Result r = runCli({"train", "--dataset", "fashion-mnist", "--devices", "cpu*2", "--epochs", "1",
                             "--train-limit", "1280", "--test-limit", "500", "--log-every", "4",
                             "--out", m_realRun});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("epoch 1/1 done"), qPrintable(r.err));
    QVERIFY2(r.out.contains("ensemble test accuracy") && r.out.contains("disagreement"), qPrintable(r.out));

    const QJsonObject config = readJson(m_realRun + "/config.json");
    QCOMPARE(config["devices"].toString(), QString("cpu*2"));
    QCOMPARE(config["mode"].toString(), QString("ensemble"));
    QCOMPARE(config["lr"].toDouble(), 0.1);
    QCOMPARE(config["batch_size"].toInt(), 128);

    const QStringList lines = testing::readLines(m_realRun + "/metrics.csv");
    QCOMPARE(lines.first(), QString("step,epoch,member,train_loss,train_accuracy,test_loss,test_accuracy"));
    // 10 steps: logged at 4, 8 and 10 (epoch end), 3 rows each, then 3 evaluation rows.
    QCOMPARE(lines.size(), 1 + 3 * 3 + 3);
    QVERIFY(lines[1].startsWith("4,1,0,"));
    QVERIFY(lines[3].startsWith("4,1,ensemble,"));
    const ensemble::MetricsRow evaluation = ensemble::readMetricsCsv((m_realRun + "/metrics.csv").toStdString()).back();
    QCOMPARE(QString::fromStdString(evaluation.member), QString("ensemble"));
    QVERIFY(evaluation.testAccuracy && *evaluation.testAccuracy > 0.3);  // real learning on real data (chance is 0.1)

    const QJsonObject summary = readJson(m_realRun + "/summary.json");
    QCOMPARE(summary["status"].toString(), QString("completed"));
    QCOMPARE(summary["mode"].toString(), QString("ensemble"));
    QCOMPARE(summary["model"].toString(), QString("cnn"));
    QCOMPARE(summary["devices"].toString(), QString("cpu*2"));
    QCOMPARE(summary["epochs_completed"].toInt(), 1);
    QVERIFY(summary["train_seconds"].toDouble() > 0);
    QVERIFY(summary["images_per_second"].toDouble() > 0);
    QCOMPARE(summary["members"].toArray().size(), 2);
    for (const auto& m : summary["members"].toArray()) {
      for (const char* key : {"test_accuracy", "test_nll", "test_brier", "test_ece"}) QVERIFY2(m.toObject().contains(key), key);
    }
    const QJsonObject e = summary["ensemble"].toObject();
    for (const char* key : {"test_accuracy", "test_nll", "test_brier", "test_ece", "disagreement"}) {
      QVERIFY2(e.contains(key), key);
    }
    QCOMPARE(e["test_accuracy"].toDouble(), *evaluation.testAccuracy);
    // stdout names the mean member beside the ensemble, and what the ensemble adds to it.
    const QJsonObject mean = summary["mean_member"].toObject();
    const auto fixed = [](double value) { return QString::number(value, 'f', 4); };
    const auto signedFixed = [&](double value) { return (value >= 0 ? "+" : "") + fixed(value); };
    QVERIFY2(r.out.contains("mean member test accuracy " + fixed(mean["test_accuracy"].toDouble()) + "  nll " +
                            fixed(mean["test_nll"].toDouble())),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("the ensemble over its mean member: accuracy " +
                            signedFixed(e["test_accuracy"].toDouble() - mean["test_accuracy"].toDouble()) + "  nll " +
                            signedFixed(e["test_nll"].toDouble() - mean["test_nll"].toDouble())),
             qPrintable(r.out));
    QVERIFY(QFileInfo::exists(m_realRun + "/checkpoints/latest"));
  }

  void weightsLoadInPythonAsAStateDict() {
    const QString weights = m_realRun + "/checkpoints/step-000000010/member-1.pt";
    QVERIFY(QFileInfo::exists(weights));
    QProcess python;
    python.start(ENSEMBLELAB_TEST_PYTHON, {"-c",
                             "import sys, torch\n"
                             "d = torch.load(sys.argv[1])\n"
                             "assert isinstance(d, dict), type(d)\n"
                             "assert tuple(d['conv1.weight'].shape) == (32, 1, 3, 3)\n"
                             "assert tuple(d['dense2.bias'].shape) == (10,)\n"
                             "print(len(d))\n",
                             weights});
    QVERIFY(python.waitForFinished(120000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    QCOMPARE(QString(python.readAllStandardOutput()).trimmed(), QString("8"));
  }

  void currentPyTorchScoresTheMembersAsTheRunDid() {
    // Plain PyTorch (ENSEMBLELAB_TEST_PYTHON: the wheel's, 2.6 or later reads with
    // weights_only=True) loads every member and scores it on the run's test images.
    QProcess python;
    python.start(ENSEMBLELAB_TEST_PYTHON, {ENSEMBLELAB_SOURCE_DIR "/scripts/pytorch_evaluate.py", m_realRun});
    QVERIFY(python.waitForFinished(120000));
    QVERIFY2(python.exitCode() == 0, python.readAllStandardError().constData());
    const QJsonObject scored = QJsonDocument::fromJson(python.readAllStandardOutput()).object();
    qInfo("read by torch %s", qPrintable(scored["torch"].toString()));
    const QJsonObject summary = readJson(m_realRun + "/summary.json");
    const QJsonArray ours = summary["members"].toArray(), theirs = scored["members"].toArray();
    QCOMPARE(theirs.size(), ours.size());
    QCOMPARE(scored["test_samples"].toInt(), 500);
    // The same weights through another LibTorch's kernels: logits can differ in the last
    // bits, which flips an image only where its two best classes tie to rounding. One image
    // in 500 per model is allowed; a wrong layer or key order misses by far more.
    const double oneImage = 1.0 / 500 + 1e-9;
    for (int i = 0; i < ours.size(); ++i) {
      const double a = ours[i].toObject()["test_accuracy"].toDouble(), b = theirs[i].toObject()["test_accuracy"].toDouble();
      QVERIFY2(std::abs(a - b) <= oneImage, qPrintable(QString("member %1: %2 here, %3 in PyTorch").arg(i).arg(a).arg(b)));
    }
    const double a = summary["ensemble"].toObject()["test_accuracy"].toDouble();
    const double b = scored["ensemble"].toObject()["test_accuracy"].toDouble();
    QVERIFY2(std::abs(a - b) <= oneImage, qPrintable(QString("ensemble: %1 here, %2 in PyTorch").arg(a).arg(b)));
  }

  void evalReproducesTheSummary() {
    const Result r = runCli({"eval", "--run", m_realRun});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject result = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonObject summary = readJson(m_realRun + "/summary.json");
    QCOMPARE(result["ensemble"].toObject()["test_accuracy"].toDouble(),
             summary["ensemble"].toObject()["test_accuracy"].toDouble());
    QCOMPARE(result["members"].toArray().size(), 2);
  }

  // eval's JSON contract (scripts rely on these names): every member, their mean and the
  // ensemble scored alike, the size curve over subsets.
  void evalReportsEveryModelsCalibration() {
    const Result r = runCli({"eval", "--run", m_realRun});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject result = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QStringList scores{"test_accuracy", "test_nll", "test_brier", "test_ece"};
    QJsonArray models = result["members"].toArray();
    models.append(result["mean_member"]);
    models.append(result["ensemble"]);
    QCOMPARE(models.size(), 4);
    for (const auto& model : models) {
      for (const QString& key : scores) QVERIFY2(model.toObject()[key].isDouble(), qPrintable(key));
    }
    QVERIFY(result["ensemble"].toObject()["disagreement"].isDouble());
    const double meanEce =
        (models[0].toObject()["test_ece"].toDouble() + models[1].toObject()["test_ece"].toDouble()) / 2;
    QVERIFY(std::abs(result["mean_member"].toObject()["test_ece"].toDouble() - meanEce) < 1e-12);
    const QJsonObject curve = result["accuracy_vs_ensemble_size"].toObject();
    for (const char* key : {"mean", "min", "max"}) QCOMPARE(curve[key].toArray().size(), 2);
    // k = 1: the worst and the best member; k = 2: the ensemble itself.
    const double a = models[0].toObject()["test_accuracy"].toDouble(), b = models[1].toObject()["test_accuracy"].toDouble();
    QCOMPARE(curve["min"].toArray()[0].toDouble(), std::min(a, b));
    QCOMPARE(curve["max"].toArray()[0].toDouble(), std::max(a, b));
    QCOMPARE(curve["mean"].toArray()[1].toDouble(), result["ensemble"].toObject()["test_accuracy"].toDouble());
  }

  // An output flag naming a folder is said to (it had been "cannot replace out/: Not a
  // directory"), and nothing is left in the folder.
  void anOutputThatIsAFolderIsSaidToBeOne() {
    QTemporaryDir dir;
    for (const QString& out : {dir.path(), dir.path() + "/"}) {
      const Result r = runCli({"predict", "--run", m_realRun, "--out", out});
      QVERIFY2(r.exitCode == 1 && r.err.contains("cannot write " + out + ": it is a folder, not a file; name a file to write"),
               qPrintable(r.err));
      QVERIFY(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty());
    }
    // In a folder not there yet: said which, and what to do (it had said "No such file or directory").
    const Result r = runCli({"predict", "--run", m_realRun, "--out", dir.filePath("later/p.csv")});
    QVERIFY2(r.exitCode == 1 && r.err.contains("the folder " + dir.filePath("later") + " does not exist; create it first"),
             qPrintable(r.err));
  }

  // Anyone can recompute the figures from predict's CSV: accuracy, NLL, Brier and ECE
  // computed here from the file alone match eval's to 1e-6, for every model.
  void predictionsRecomputeEvalsFigures() {
    const QString csv = m_dir.filePath("predictions.csv");
    Result r = runCli({"predict", "--run", m_realRun, "--out", csv});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli({"eval", "--run", m_realRun});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject result = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QStringList lines = testing::readLines(csv);
    QCOMPARE(lines.first(), QString("index,label,model,p0,p1,p2,p3,p4,p5,p6,p7,p8,p9"));
    struct Sums { double correct = 0, nll = 0, brier = 0; std::vector<double> binConfidence = std::vector<double>(15), binCorrect = std::vector<double>(15); int n = 0; };
    QMap<QString, Sums> sums;
    for (int i = 1; i < lines.size(); ++i) {
      const QStringList cells = lines[i].split(',');
      QCOMPARE(cells.size(), 13);
      const int label = cells[1].toInt();
      std::vector<double> p;
      for (int k = 3; k < 13; ++k) p.push_back(cells[k].toDouble());
      const int predicted = int(std::max_element(p.begin(), p.end()) - p.begin());
      Sums& s = sums[cells[2]];
      s.n += 1;
      s.correct += predicted == label;
      s.nll -= std::log(std::max(p[std::size_t(label)], double(std::numeric_limits<float>::denorm_min())));
      for (int k = 0; k < 10; ++k) s.brier += std::pow(p[std::size_t(k)] - (k == label), 2);
      const double confidence = p[std::size_t(predicted)];
      const int bin = std::clamp(int(std::ceil(confidence * 15)) - 1, 0, 14);
      s.binConfidence[std::size_t(bin)] += confidence;
      s.binCorrect[std::size_t(bin)] += predicted == label;
    }
    QCOMPARE(sums.keys(), QStringList({"ensemble", "member-0", "member-1"}));
    const auto check = [&](const QString& model, const QJsonObject& expected) {
      const Sums& s = sums[model];
      QCOMPARE(s.n, 500);
      double ece = 0;
      for (int b = 0; b < 15; ++b) ece += std::abs(s.binConfidence[std::size_t(b)] - s.binCorrect[std::size_t(b)]) / s.n;
      const QList<QPair<QString, double>> recomputed{
          {"test_accuracy", s.correct / s.n}, {"test_nll", s.nll / s.n}, {"test_brier", s.brier / s.n}, {"test_ece", ece}};
      for (const auto& [key, value] : recomputed) {
        QVERIFY2(std::abs(value - expected[key].toDouble()) < 1e-6,
                 qPrintable(QString("%1 %2: %3 from the CSV, %4 from eval").arg(model, key).arg(value).arg(expected[key].toDouble())));
      }
    };
    check("member-0", result["members"].toArray()[0].toObject());
    check("member-1", result["members"].toArray()[1].toObject());
    check("ensemble", result["ensemble"].toObject());
  }

  // Out-of-distribution data of any size in samples, and each way it can be wrong.
  void outOfDistributionIsScoredOrRefusedWithTheReason() {
    const QString noise = m_dir.filePath("noise28"), small = m_dir.filePath("small14"), empty = m_dir.filePath("empty");
    for (const QString& folder : {noise, small, empty}) QVERIFY(QDir().mkpath(folder));
    testing::writeMnistFolder(noise, 10, 321, 28, 28, true);  // 321 images against the run's 500
    testing::writeMnistFolder(small, 10, 50, 14, 14, false);
    testing::writeMnistFolder(empty, 10, 0, 28, 28, false);
    Result r = runCli({"eval", "--run", m_realRun, "--ood", noise});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject ood = QJsonDocument::fromJson(r.out.toUtf8()).object()["ood"].toObject();
    QCOMPARE(ood["in_samples"].toInt(), 500);
    QCOMPARE(ood["out_samples"].toInt(), 321);
    QCOMPARE(ood["members"].toArray().size(), 2);
    for (const auto& member : ood["members"].toArray()) {
      for (const char* key : {"auroc_max_probability", "auroc_entropy"}) {
        const double auroc = member.toObject()[key].toDouble(-1);
        QVERIFY2(auroc >= 0 && auroc <= 1, key);
      }
    }
    for (const char* key : {"auroc_max_probability", "auroc_entropy", "auroc_mutual_information"}) {
      const double auroc = ood["ensemble"].toObject()[key].toDouble(-1);
      QVERIFY2(auroc >= 0 && auroc <= 1, key);
    }
    r = runCli({"eval", "--run", m_realRun, "--ood", small});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("holds 14x14 grey images, but this run's models take 28x28 grey images"), qPrintable(r.err));
    r = runCli({"eval", "--run", m_realRun, "--ood", empty});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("t10k-images-idx3-ubyte holds no images"), qPrintable(r.err));  // the file that is empty
    // A mistyped set is said of --ood, with the sets made from the run (it said "pass --dataset").
    r = runCli({"eval", "--run", m_realRun, "--ood", "invertd"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("dataset folder invertd does not exist; pass --ood fashion-mnist, synthetic, or a folder holding "
                               "MNIST-format test files (t10k-images and t10k-labels)") &&
                 r.err.contains("or inverted or uniform-noise, made from the run's own test set") && !r.err.contains("--dataset"),
             qPrintable(r.err));
    // A folder of images alone: the message names the test split's two files, not the four
    // of a dataset to train on (a person had gone looking for training files).
    QVERIFY(QFile::remove(noise + "/t10k-labels-idx1-ubyte.gz"));
    for (const QStringList& scoring : {QStringList{"eval", "--run", m_realRun, "--ood", noise},
                                       QStringList{"predict", "--run", m_realRun, "--dataset", noise, "--out", m_dir.filePath("p.csv")}}) {
      r = runCli(scoring);
      QVERIFY2(r.exitCode == 1 && r.err.contains("has no t10k-labels-idx1-ubyte (or t10k-labels-idx1-ubyte.gz); to score a run on "
                                                 "it, a folder needs only a test split: t10k-images-idx3-ubyte and "
                                                 "t10k-labels-idx1-ubyte, each raw or .gz (images with no classes of the "
                                                 "run's, as an out-of-distribution set, may take labels of 0)"),
               qPrintable(r.err));
    }
  }

  // A --train-limit above the training set's size trains on all of it, and says so (it had
  // been clamped without a word, config.json keeping the number asked).
  void aTrainLimitAboveTheSetsSizeIsSaid() {
    const QString data = m_dir.filePath("limit-data"), run = m_dir.filePath("limit-run");
    QVERIFY(QDir().mkpath(data));
    testing::writeMnistFolder(data, 64, 30, 16, 16, false);
    Result r = runCli({"train", "--dataset", data, "--mode", "single", "--devices", "cpu", "--batch-size", "32",
                       "--epochs", "1", "--train-limit", "5000", "--out", run});
    QVERIFY2(r.exitCode == 0 && r.err.contains("64 training images of 16x16, 10 classes (all of them: --train-limit 5000 "
                                                 "is more than it holds)"),
             qPrintable(r.err));
    r = runCli({"train", "--dataset", data, "--mode", "single", "--devices", "cpu", "--batch-size", "32", "--epochs", "1",
                "--train-limit", "64", "--out", run + "-exact"});
    QVERIFY2(r.exitCode == 0 && !r.err.contains("all of them"), qPrintable(r.err));
  }

  // `COMMAND --help` says that command's usage (it had printed the whole help); plain
  // --help still says every command's.
  void eachCommandsHelpIsItsOwn() {
    const Result all = runCli({"--help"});
    QVERIFY2(all.exitCode == 0, qPrintable(all.err));
    for (const QString command : {"devices", "train", "resume", "eval", "predict", "export", "sweep", "import"}) {
      const QString usage = "  ensemble-lab-cli " + command + " ";
      QVERIFY2(all.out.contains(usage), qPrintable(command));
      const Result own = runCli({command, "--help"});
      QVERIFY2(own.exitCode == 0 && own.out.contains(usage) && own.out.contains("Exit status:"), qPrintable(command + ": " + own.out));
      const QStringList usageLines = own.out.split('\n').filter(QRegularExpression("^  ensemble-lab-cli "));
      QVERIFY2(!usageLines.isEmpty() && usageLines.filter(QRegularExpression("^" + QRegularExpression::escape(usage))).size() ==
                                            usageLines.size(),
               qPrintable(command + ":\n" + own.out));
      QVERIFY(own.out.size() < all.out.size());
    }
    QVERIFY(runCli({"train", "--help"}).out.contains("--lr "));
    // `help COMMAND`, as git and cargo take it, says the same.
    const Result helpTrain = runCli({"help", "train"});
    QVERIFY2(helpTrain.exitCode == 0 && helpTrain.out == runCli({"train", "--help"}).out, qPrintable(helpTrain.err));
    const Result typo = runCli({"help", "trian"});
    QVERIFY2(typo.exitCode == 2 && typo.err.contains("help takes one command: devices, train, resume, eval, predict, "
                                                     "export, sweep or import (did you mean train?)"),
             qPrintable(typo.err));
  }

  // A folder of one's own images, to score a run on, needs only its test files (t10k-*), and
  // placeholder labels (all 0) will do: predict, eval --dataset and --ood had demanded a
  // training split fit to train on ("has no train-images", "holds no images", "has one class").
  void ownImagesAreScoredFromTheirTestFilesAlone() {
    const QString testOnly = m_dir.filePath("own-test-only"), emptyTrain = m_dir.filePath("own-empty-train"),
                  trainOnly = m_dir.filePath("own-train-only");
    for (const QString& folder : {testOnly, emptyTrain, trainOnly}) QVERIFY(QDir().mkpath(folder));
    testing::writeMnistFolder(testOnly, 10, 40, 28, 28, false, 1);
    testing::writeMnistFolder(emptyTrain, 0, 40, 28, 28, true, 1);
    testing::writeMnistFolder(trainOnly, 10, 40, 28, 28, false, 1);
    for (const QString name : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte"}) QVERIFY(QFile::remove(testOnly + "/" + name));
    for (const QString name : {"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) QVERIFY(QFile::remove(trainOnly + "/" + name));
    QStringList predictions;
    for (const QString& folder : {testOnly, emptyTrain}) {
      const QString out = folder + ".csv";
      Result r = runCli({"predict", "--run", m_realRun, "--dataset", folder, "--out", out});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err));
      const QStringList rows = testing::readLines(out);
      QCOMPARE(rows.size(), 1 + 40 * 3);  // two members and the ensemble per image
      predictions << rows.join('\n');
      r = runCli({"eval", "--run", m_realRun, "--dataset", folder});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err));
      QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["test_samples"].toInt(), 40);
      r = runCli({"eval", "--run", m_realRun, "--ood", folder});
      QVERIFY2(r.exitCode == 0, qPrintable(r.err));
      QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["ood"].toObject()["out_samples"].toInt(), 40);
    }
    QCOMPARE(predictions[0], predictions[1]);  // the same test files, however the folder came
    const Result r = runCli({"predict", "--run", m_realRun, "--dataset", trainOnly, "--out", trainOnly + ".csv"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("has no t10k-images-idx3-ubyte"), qPrintable(r.err));
  }

  // The bash completion the package installs, run by bash as a prompt runs it (COMP_LINE up to
  // the cursor, COMP_WORDBREAKS as bash sets it): what it offers is the CLI's to say
  // (--complete), from the same declarations as the parser, the choices and the settings.
  void bashCompletesWhatTheCliTakes_data() {
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QStringList>("expected");
    const auto choicesOf = [](const char* flag) {
      QStringList choices;
      for (const std::string& choice : ensemble::configFieldByFlag(flag)->choices) choices << QString::fromStdString(choice);
      return choices;
    };
    QTest::newRow("a command") << "tr" << QStringList{"train"};
    QTest::newRow("the commands and options")
        << "" << QStringList{"devices", "train", "resume", "eval", "predict", "export", "sweep", "import", "--help",
                             "--version", "--list-flags"};
    QTest::newRow("flags") << "train --mo" << QStringList{"--mode", "--model", "--momentum"};
    QTest::newRow("a flag given is not offered again") << "train --model cnn --mo" << QStringList{"--mode", "--momentum"};
    QTest::newRow("eval's --shift repeats") << "eval --shift rotate:0 --sh" << QStringList{"--shift"};
    QTest::newRow("predict's does not") << "predict --shift rotate:0 --sh" << QStringList{};
    QTest::newRow("a command's own flags") << "import --t" << QStringList{"--test", "--to", "--train"};
    QTest::newRow("the models") << "train --model " << choicesOf("model");
    QTest::newRow("the precisions") << "train --mode single --precision " << choicesOf("precision");
    QTest::newRow("a switch") << "train --deterministic o" << QStringList{"off", "on"};
    QTest::newRow("a number: nothing") << "train --lr " << QStringList{};
    QTest::newRow("a sweep's settings") << "sweep --grid lr" << QStringList{"lr=", "lr_schedule=", "lr_warmup_steps="};
    // bash replaces what follows the word's last '=' or ':' alone.
    QTest::newRow("a setting's values") << "sweep --grid mode=" << choicesOf("mode");
    QTest::newRow("a setting's value begun") << "sweep --grid member_form=s" << QStringList{"separate", "stacked"};
    QTest::newRow("the shift kinds") << "eval --shift " << QStringList{"contrast:", "noise:", "rotate:", "translate:"};
    QTest::newRow("the devices") << "train --devices cp" << QStringList{"cpu", "cpu*4"};
    QTest::newRow("a config file") << "train --config " << QStringList{"config.json", "data", "runs"};
    QTest::newRow("a file begun") << "train --config c" << QStringList{"config.json"};
    QTest::newRow("a run folder") << "resume --run " << QStringList{"data", "runs"};
    QTest::newRow("a dataset") << "train --dataset " << QStringList{"data", "fashion-mnist", "runs", "synthetic"};
    QTest::newRow("an OOD set: the run's own too") << "eval --ood " << QStringList{"data", "fashion-mnist", "inverted", "runs",
                                                                                  "synthetic", "uniform-noise"};
    QTest::newRow("a stray word: nothing") << "train cnn" << QStringList{};
    QTest::newRow("--flag=value") << "train --model=le" << QStringList{"lenet"};
    QTest::newRow("--flag=path") << "train --config=c" << QStringList{"config.json"};
    QTest::newRow("--flag=number: nothing") << "train --lr=0" << QStringList{};
    QTest::newRow("--list-flags") << "--list-flags e" << QStringList{"eval", "export"};
  }
  void bashCompletesWhatTheCliTakes() {
    QFETCH(QString, typed);
    QFETCH(QStringList, expected);
    QTemporaryDir cwd;
    QVERIFY(holdsWhatPathsCompleteFrom(cwd));
    QStringList offered = bashCompletion(QString(ENSEMBLELAB_CLI_PATH) + " " + typed, cwd.path());
    offered.sort();
    expected.sort();
    QCOMPARE(offered, expected);
  }
  // Variables set for the command before its name (OMP_NUM_THREADS=2 ensemble-lab-cli ...).
  void bashCompletesAfterVariablesSetForTheCommand() {
    QCOMPARE(bashCompletion("OMP_NUM_THREADS=2 CUDA_VISIBLE_DEVICES=0 " ENSEMBLELAB_CLI_PATH " tr", m_dir.path()),
             QStringList{"train"});
  }

  // The zsh completion the package installs, in a real interactive zsh with compinit, TAB
  // typed after the line (tests/CompleteInZsh.zsh): the same answers as bash's, from the
  // CLI; zsh shows each whole ("mode=single"), and a value typed on takes no space.
  void zshCompletesWhatTheCliTakes_data() {
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("a command") << "ensemble-lab-cli tr" << QStringList{"train"};
    QTest::newRow("flags") << "ensemble-lab-cli train --mo" << QStringList{"--mode", "--model", "--momentum"};
    QTest::newRow("a flag given is not offered again") << "ensemble-lab-cli train --model cnn --mo"
                                                       << QStringList{"--mode", "--momentum"};
    QTest::newRow("the models") << "ensemble-lab-cli train --model " << QStringList{"cnn", "lenet", "resnet18"};
    QTest::newRow("a sweep's settings, typed on")
        << "ensemble-lab-cli sweep --grid lr"
        << QStringList{"lr= (no space)", "lr_schedule= (no space)", "lr_warmup_steps= (no space)"};
    QTest::newRow("a setting's value") << "ensemble-lab-cli sweep --grid member_form=s"
                                       << QStringList{"member_form=separate", "member_form=stacked"};
    QTest::newRow("the shift kinds, typed on")
        << "ensemble-lab-cli eval --shift "
        << QStringList{"contrast: (no space)", "noise: (no space)", "rotate: (no space)", "translate: (no space)"};
    QTest::newRow("the devices") << "ensemble-lab-cli train --devices cp" << QStringList{"cpu", "cpu*4"};
    QTest::newRow("a config file") << "ensemble-lab-cli train --config " << QStringList{"config.json", "data", "runs"};
    QTest::newRow("a run folder") << "ensemble-lab-cli resume --run " << QStringList{"data", "runs"};
    QTest::newRow("a dataset") << "ensemble-lab-cli train --dataset "
                               << QStringList{"data", "fashion-mnist", "runs", "synthetic"};
    QTest::newRow("a number: nothing") << "ensemble-lab-cli train --lr " << QStringList{};
    QTest::newRow("--flag=value") << "ensemble-lab-cli train --model=le" << QStringList{"--model=lenet"};
    QTest::newRow("--flag=path") << "ensemble-lab-cli train --config=c" << QStringList{"--config=config.json"};
    QTest::newRow("after variables set for the command") << "OMP_NUM_THREADS=2 ensemble-lab-cli tr"
                                                         << QStringList{"train"};
  }
  void zshCompletesWhatTheCliTakes() {
    QFETCH(QString, typed);
    QFETCH(QStringList, expected);
    QTemporaryDir cwd;
    QVERIFY(holdsWhatPathsCompleteFrom(cwd));
    QProcess zsh;
    zsh.start("zsh", {ENSEMBLELAB_SOURCE_DIR "/tests/CompleteInZsh.zsh",
                      ENSEMBLELAB_SOURCE_DIR "/packaging/ensemble-lab-cli.zsh-completion",
                      QFileInfo(ENSEMBLELAB_CLI_PATH).absolutePath(), cwd.path(), typed});
    QVERIFY2(zsh.waitForStarted(), "no zsh: scripts/install-deps.sh installs it");
    QVERIFY2(zsh.waitForFinished(60000) && zsh.exitCode() == 0, zsh.readAllStandardError().constData());
    QStringList offered = QString::fromUtf8(zsh.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    offered.sort();
    expected.sort();
    QCOMPARE(offered, expected);
  }

  // The fish completion the package installs, found by fish as it finds an installed one
  // (by the command's name, in $fish_complete_path) and asked with fish's own `complete -C`.
  void fishCompletesWhatTheCliTakes_data() {
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("a command") << "ensemble-lab-cli tr" << QStringList{"train"};
    QTest::newRow("flags") << "ensemble-lab-cli train --mo" << QStringList{"--mode", "--model", "--momentum"};
    QTest::newRow("the models") << "ensemble-lab-cli train --model " << QStringList{"cnn", "lenet", "resnet18"};
    QTest::newRow("a sweep's settings") << "ensemble-lab-cli sweep --grid lr"
                                        << QStringList{"lr=", "lr_schedule=", "lr_warmup_steps="};
    QTest::newRow("a setting's value") << "ensemble-lab-cli sweep --grid member_form=s"
                                       << QStringList{"member_form=separate", "member_form=stacked"};
    QTest::newRow("the shift kinds") << "ensemble-lab-cli eval --shift "
                                     << QStringList{"contrast:", "noise:", "rotate:", "translate:"};
    QTest::newRow("the devices") << "ensemble-lab-cli train --devices cp" << QStringList{"cpu", "cpu*4"};
    QTest::newRow("a config file") << "ensemble-lab-cli train --config " << QStringList{"config.json", "data/", "runs/"};
    QTest::newRow("a run folder") << "ensemble-lab-cli resume --run " << QStringList{"data/", "runs/"};
    QTest::newRow("a dataset") << "ensemble-lab-cli train --dataset "
                               << QStringList{"data/", "fashion-mnist", "runs/", "synthetic"};
    QTest::newRow("a number: nothing") << "ensemble-lab-cli train --lr " << QStringList{};
    QTest::newRow("--flag=value") << "ensemble-lab-cli train --model=le" << QStringList{"--model=lenet"};
    QTest::newRow("--flag=path") << "ensemble-lab-cli train --config=c" << QStringList{"--config=config.json"};
    QTest::newRow("--flag=folder") << "ensemble-lab-cli resume --run=r" << QStringList{"--run=runs/"};
    QTest::newRow("after variables set for the command") << "OMP_NUM_THREADS=2 ensemble-lab-cli tr"
                                                         << QStringList{"train"};
  }
  void fishCompletesWhatTheCliTakes() {
    QFETCH(QString, typed);
    QFETCH(QStringList, expected);
    QTemporaryDir cwd, completions;
    QVERIFY(holdsWhatPathsCompleteFrom(cwd));
    QVERIFY(QFile::copy(ENSEMBLELAB_SOURCE_DIR "/packaging/ensemble-lab-cli.fish-completion",
                        completions.filePath("ensemble-lab-cli.fish")));
    QProcess fish;
    fish.setWorkingDirectory(cwd.path());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("PATH", QFileInfo(ENSEMBLELAB_CLI_PATH).absolutePath() + ":" + environment.value("PATH"));
    fish.setProcessEnvironment(environment);
    fish.start("fish", {"--no-config", "-c", "set -p fish_complete_path $argv[1]; complete -C$argv[2]",
                        completions.path(), typed});
    QVERIFY2(fish.waitForStarted(), "no fish: scripts/install-deps.sh installs it");
    QVERIFY2(fish.waitForFinished(60000) && fish.exitCode() == 0, fish.readAllStandardError().constData());
    QStringList offered;
    for (const QString& line : QString::fromUtf8(fish.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts)) {
      offered << line.section('\t', 0, 0);  // an offer, without the description fish may show beside it
    }
    offered.sort();
    expected.sort();
    QCOMPARE(offered, expected);
  }

  // The front door (app/cli/FrontDoorMain.cpp) answers help, usage mistakes and completions
  // without loading LibTorch, which cost each answer 0.4 s or more (every TAB); whatever
  // needs it, the devices' completions included, the engine answers in the same process.
  // The dynamic linker's own log (LD_DEBUG=libs) says what each run loaded.
  void theFrontDoorAnswersWithoutLoadingLibTorch_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("says");
    QTest::addColumn<bool>("loadsLibTorch");
    QTest::newRow("--help") << QStringList{"--help"} << 0 << "  ensemble-lab-cli train " << false;
    QTest::newRow("a command's --help") << QStringList{"sweep", "--help"} << 0 << "--grid" << false;
    QTest::newRow("--version") << QStringList{"--version"} << 0 << "ensemble-lab-cli " ENSEMBLELAB_VERSION << false;
    QTest::newRow("--list-flags") << QStringList{"--list-flags", "eval"} << 0 << "--shift" << false;
    QTest::newRow("a command mistyped") << QStringList{"trian"} << 2 << "(did you mean train?)" << false;
    QTest::newRow("an unknown flag") << QStringList{"train", "--learning-rate", "0.1"} << 2 << "(did you mean --lr?)"
                                     << false;
    QTest::newRow("a flag without its value") << QStringList{"eval", "--run"} << 2 << "--run" << false;
    QTest::newRow("completing a flag") << QStringList{"--complete", "train", "--mo"} << 0 << "--model" << false;
    QTest::newRow("completing a choice") << QStringList{"--complete", "train", "--model", ""} << 0 << "resnet18"
                                         << false;
    QTest::newRow("completing a sweep's setting") << QStringList{"--complete", "sweep", "--grid", "mom"} << 0
                                                  << "momentum=" << false;
    QTest::newRow("completing the devices") << QStringList{"--complete", "train", "--devices", ""} << 0 << "cpu*4"
                                            << true;
    QTest::newRow("completing a sweep's devices") << QStringList{"--complete", "sweep", "--grid", "devices="} << 0
                                                  << "devices=cpu" << true;
    QTest::newRow("devices") << QStringList{"devices"} << 0 << "cpu" << true;
    QTest::newRow("a value the engine refuses") << QStringList{"train", "--epochs", "many"} << 1 << "--epochs"
                                                << true;
  }
  void theFrontDoorAnswersWithoutLoadingLibTorch() {
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, says);
    QFETCH(bool, loadsLibTorch);
    QTemporaryDir dir;
    const Result r =
        runProgram(ENSEMBLELAB_CLI_PATH, arguments, {{"LD_DEBUG", "libs"}, {"LD_DEBUG_OUTPUT", dir.filePath("libs")}});
    QVERIFY2(r.exitCode == exitCode, qPrintable(QString::number(r.exitCode) + ": " + r.err));
    QVERIFY2((r.out + r.err).contains(says), qPrintable(r.out + r.err));
    QStringList loaded;
    for (const QString& name : QDir(dir.path()).entryList({"libs.*"}, QDir::Files)) {
      for (const QString& line : testing::readLines(dir.filePath(name))) {
        if (line.contains("calling init:")) loaded << line.section("calling init:", 1).trimmed();
      }
    }
    QVERIFY2(!loaded.isEmpty(), "the dynamic linker logged nothing");
    const bool libTorch = !loaded.filter(QRegularExpression("/libtorch[^/]*\\.so")).isEmpty();
    QVERIFY2(libTorch == loadsLibTorch, qPrintable(loaded.join("\n")));
  }

  // The front door without its engine: it still answers what it answers alone, and says for
  // the rest which file is missing and what to do; an engine that is a link back to the front
  // door is refused rather than started again and again.
  void aFrontDoorWithoutItsEngineSaysWhatIsMissing() {
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath("bin")) && QDir().mkpath(dir.filePath("libexec/ensemble-lab")));
    const QString frontDoor = dir.filePath("bin/ensemble-lab-cli");
    QVERIFY(QFile::copy(ENSEMBLELAB_CLI_PATH, frontDoor));
    const QString engine = dir.filePath("libexec/ensemble-lab/ensemble-lab-cli-engine");

    Result r = runProgram(frontDoor, {"--help"});
    QVERIFY2(r.exitCode == 0 && r.out.contains("  ensemble-lab-cli train "), qPrintable(r.err));
    r = runProgram(frontDoor, {"train", "--dataset", "synthetic", "--out", dir.filePath("run")});
    QVERIFY2(r.exitCode == 1 && r.err.contains("cannot start its engine " + engine + " (No such file or directory)") &&
                 r.err.contains("reinstall EnsembleLab"),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(dir.filePath("run")));
    r = runProgram(frontDoor, {"--complete", "train", "--devices", ""});
    QVERIFY2(r.exitCode == 1 && r.out.isEmpty(), qPrintable(r.out));  // the shell's script drops stderr

    QVERIFY(QFile::link(frontDoor, engine));
    r = runProgram(frontDoor, {"devices"}, {}, 60000);
    QVERIFY2(r.exitCode == 1 && r.err.contains("its engine " + engine + " leads back to this front door"),
             qPrintable(r.err));
  }

  // Every flag a command accepts (`--list-flags`, the same declarations the parser and
  // --help use) does something a probe below can see: a value in config.json, a number in
  // eval's output, a message naming the value. A flag that is accepted and ignored (as
  // `eval --test-limit` once was) fails here, and so does a new flag without a probe.
  void everyAcceptedFlagHasAnEffect() {
#if defined(ENSEMBLELAB_SANITIZED)
    // What this checks is each flag's effect, the plain builds' to see; its CLI runs train with
    // code the sanitizers check in the tests around it, and under ASan took 135 of this
    // suite's 636 s, where CI's three builds must fit in 90 minutes.
    QSKIP("each flag's effect is checked in the plain builds");
#endif
    QMap<QString, QSet<QString>> shown;  // command -> flags whose effect a probe saw
    const auto saw = [&](const QString& command, const QStringList& flags) {
      for (const QString& flag : flags) shown[command].insert(flag);
    };
    const QString root = m_dir.filePath("flags");
    QVERIFY(QDir().mkpath(root));

    // train: every config field's flag, at a value other than its default, reaches
    // config.json (in two runs: stacked members need the cnn in ensemble mode).
    const QStringList tiny{"--epochs", "1", "--train-limit", "256", "--test-limit", "100"};
    Result r = runCli(QStringList{"train", "--dataset", "synthetic", "--model", "lenet", "--mode", "data-parallel",
                                  "--devices", "cpu*2", "--lr", "0.03", "--momentum", "0.5", "--weight-decay", "0.0005",
                                  "--lr-schedule", "cosine", "--lr-warmup-steps", "3", "--batch-size", "32", "--seed", "5", "--checkpoint-every", "3", "--log-every", "2", "--eval-every", "5",
                                  "--eval-batch-size", "50", "--memory-budget", "4096", "--precision", "bf16",
                                  "--deterministic", "off", "--out", root + "/a"} +
                      tiny);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject a = readJson(root + "/a/config.json");
    const QMap<QString, QJsonValue> expectedA{
        {"dataset", "synthetic"}, {"model", "lenet"}, {"mode", "data-parallel"}, {"devices", "cpu*2"},
        {"lr", 0.03}, {"momentum", 0.5}, {"weight_decay", 0.0005}, {"lr_schedule", "cosine"}, {"lr_warmup_steps", 3}, {"batch_size", 32}, {"seed", 5}, {"checkpoint_every", 3},
        {"log_every", 2}, {"eval_every", 5}, {"eval_batch_size", 50}, {"memory_budget_mb", 4096}, {"precision", "bf16"},
        {"deterministic", false},
        {"epochs", 1}, {"train_limit", 256}, {"test_limit", 100}};
    for (auto it = expectedA.begin(); it != expectedA.end(); ++it) {
      QVERIFY2(a[it.key()] == it.value(), qPrintable(it.key() + " in config.json: " + a[it.key()].toVariant().toString()));
    }
    QCOMPARE(readJson(root + "/a/summary.json")["test_samples"].toInt(), 100);  // the limit was applied
    QCOMPARE(readJson(root + "/a/summary.json")["train_samples"].toInt(), 256);
    // A varying rate is in the progress lines: the epoch's last line says its last step's.
    {
      ensemble::ExperimentConfig schedule;
      schedule.learningRate = 0.03;
      schedule.lrSchedule = ensemble::LrSchedule::Cosine;
      schedule.lrWarmupSteps = 3;
      schedule.epochs = 1;
      const int steps = readJson(root + "/a/summary.json")["steps_per_epoch"].toInt();
      const QString line = QString("step %1/%1 ").arg(steps), rate = QString::asprintf(
          "  lr %.4g  ", ensemble::learningRateOfStep(schedule, steps, steps));
      const QStringList lines = r.err.split('\n').filter(line);
      QVERIFY2(steps > 3 && lines.size() == 1 && lines[0].contains(rate), qPrintable(rate + " in:\n" + r.err));
    }
    saw("train", {"--dataset", "--model", "--mode", "--devices", "--lr", "--momentum", "--weight-decay", "--lr-schedule", "--lr-warmup-steps", "--batch-size", "--seed",
                  "--checkpoint-every", "--log-every", "--eval-every", "--eval-batch-size", "--memory-budget",
                  "--precision", "--deterministic",
                  "--epochs", "--train-limit", "--test-limit", "--out"});
    // --config sets what no flag overrides; --member-form stacked.
    QVERIFY(testing::writeFile(root + "/b.json", R"({"lr": 0.07, "dataset": "synthetic"})"));
    r = runCli(QStringList{"train", "--config", root + "/b.json", "--member-form", "stacked", "--devices", "cpu*2",
                           "--out", root + "/b"} + tiny);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject b = readJson(root + "/b/config.json");
    QCOMPARE(b["lr"].toDouble(), 0.07);
    QVERIFY2(!r.err.contains("  lr "), qPrintable(r.err));  // a constant rate is the run's lr, not a progress figure
    QCOMPARE(b["member_form"].toString(), QString("stacked"));
    QCOMPARE(b["eval_batch_size"].toInt(), 256);  // auto, resolved for the CPU
    saw("train", {"--config", "--member-form"});
    // --init-from: the file is read when the run starts (TestInitFrom trains from real ones).
    r = runCli({"train", "--dataset", "synthetic", "--init-from", root + "/none.pt", "--out", root + "/i"});
    QVERIFY2(r.exitCode == 1 && r.err.contains(root + "/none.pt") && r.err.contains("cannot open"), qPrintable(r.err));
    saw("train", {"--init-from"});
    // --init-std: recorded, and refused beside --init-from, whose weights would replace its
    // draws (TestModels checks the draws).
    r = runCli(QStringList{"train", "--dataset", "synthetic", "--init-std", "0.05", "--out", root + "/s"} + tiny);
    QVERIFY2(r.exitCode == 0 && readJson(root + "/s/config.json")["init_std"].toDouble() == 0.05, qPrintable(r.err));
    r = runCli({"train", "--dataset", "synthetic", "--init-std", "0.01", "--init-from", root + "/none.pt", "--out", root + "/si"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("--init-std draws the initial weights and --init-from loads them"),
             qPrintable(r.err));
    saw("train", {"--init-std"});
    // --cuda-graphs on: refused where a step cannot be captured (here: no GPU), by name.
    r = runCli({"train", "--dataset", "synthetic", "--cuda-graphs", "on", "--out", root + "/g"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("--cuda-graphs on captures"), qPrintable(r.err));
    // ... and for the machine alone with a schedule or a warmup: a captured step reads its
    // learning rate from the GPU, so a varying one is no reason to refuse.
    for (const QStringList& varying : {QStringList{"--lr-schedule", "cosine"}, QStringList{"--lr-warmup-steps", "20"}}) {
      r = runCli(QStringList{"train", "--dataset", "synthetic", "--cuda-graphs", "on", "--out", root + "/g"} + varying);
      QVERIFY2(r.exitCode == 1 && r.err.contains("--cuda-graphs on captures") && !r.err.contains("learning rate"),
               qPrintable(r.err));
    }
    saw("train", {"--cuda-graphs"});

    // sweep takes train's settings for every job (the same flags as run a, lr as a grid of
    // one), --config and --member-form, --init-from, and --resume (TestSweep runs real grids).
    r = runCli(QStringList{"sweep", "--dataset", "synthetic", "--model", "lenet", "--mode", "data-parallel",
                           "--devices", "cpu*2", "--grid", "lr=0.03", "--momentum", "0.5", "--weight-decay", "0.0005",
                           "--lr-schedule", "cosine", "--lr-warmup-steps", "3", "--batch-size", "32",
                           "--seed", "5", "--checkpoint-every", "3", "--log-every", "2", "--eval-every", "5",
                           "--eval-batch-size", "50",
                           "--memory-budget", "4096", "--precision", "bf16", "--deterministic", "off", "--out",
                           root + "/sa"} +
               tiny);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject sa = readJson(root + "/sa/001-lr=0.03/config.json");
    for (auto it = expectedA.begin(); it != expectedA.end(); ++it) {
      QVERIFY2(sa[it.key()] == it.value(), qPrintable("sweep: " + it.key()));
    }
    saw("sweep", {"--dataset", "--model", "--mode", "--devices", "--grid", "--momentum", "--weight-decay", "--lr-schedule",
                  "--lr-warmup-steps",
                  "--batch-size", "--seed",
                  "--checkpoint-every", "--log-every", "--eval-every", "--eval-batch-size", "--memory-budget",
                  "--precision", "--deterministic",
                  "--epochs", "--train-limit", "--test-limit", "--out"});
    r = runCli(QStringList{"sweep", "--config", root + "/b.json", "--member-form", "stacked", "--devices", "cpu*2",
                           "--grid", "seed=0", "--lr", "0.02", "--init-std", "0.03", "--out", root + "/sb"} + tiny);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject sb = readJson(root + "/sb/001-seed=0/config.json");
    QVERIFY(sb["lr"].toDouble() == 0.02 && sb["dataset"].toString() == "synthetic" &&
            sb["member_form"].toString() == "stacked" && sb["init_std"].toDouble() == 0.03);
    // summary.json records the form it trained in too (it had been config.json alone).
    QCOMPARE(readJson(root + "/sb/001-seed=0/summary.json")["member_form"].toString(), QString("stacked"));
    r = runCli({"sweep", "--resume", root + "/sb"});
    QVERIFY2(r.exitCode == 0 && r.err.contains("001-seed=0") && r.err.contains("completed"), qPrintable(r.err));
    r = runCli({"sweep", "--dataset", "synthetic", "--grid", "seed=0", "--init-from", root + "/none.pt", "--out",
                root + "/si"});
    QVERIFY2(r.exitCode == 1 && r.err.contains(root + "/none.pt"), qPrintable(r.err));
    saw("sweep", {"--config", "--member-form", "--lr", "--resume", "--init-from", "--init-std"});
    r = runCli({"sweep", "--dataset", "synthetic", "--grid", "seed=0", "--cuda-graphs", "on", "--out", root + "/sg"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("--cuda-graphs on captures"), qPrintable(r.err));
    saw("sweep", {"--cuda-graphs"});

    // The group's flags, on train and on resume: rank 0 waits for rank 1 at the given
    // address and port for the given time, and names all of them; rank 1 looks for rank 0;
    // nccl is refused for CPU replicas. A run of one process is refused a group at once;
    // the flags are tried on a copy whose summary.json says two processes trained it.
    r = runCli({"resume", "--run", root + "/a", "--world-size", "2", "--timeout", "60"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("was trained by one process (summary.json), not a group of 2"),
             qPrintable(r.err));
    std::filesystem::copy((root + "/a").toStdString(), (root + "/a-of-2").toStdString(),
                          std::filesystem::copy_options::recursive);
    QJsonObject ofTwo = testing::readJson(root + "/a-of-2/summary.json");
    ofTwo["processes"] = 2;
    QVERIFY(testing::writeFile(root + "/a-of-2/summary.json", QJsonDocument(ofTwo).toJson()));
    for (const QString command : {"train", "resume"}) {
      const QStringList what = command == "train" ? QStringList{"train", "--dataset", "synthetic", "--out", root + "/g"}
                                                  : QStringList{"resume", "--run", root + "/a-of-2"};
      const int port = testing::freePort();
      r = runCli(what + QStringList{"--world-size", "2", "--master-addr", "127.0.0.2", "--master-port",
                                    QString::number(port), "--timeout", "1.5"});
      const QString joined = QString("rank 1 of 2 did not join the run at 127.0.0.2:%1 within 1.5 s").arg(port);
      QVERIFY2(r.exitCode == 1 && r.err.contains(joined), qPrintable(command + ": " + r.err));
      r = runCli(what + QStringList{"--world-size", "2", "--rank", "1", "--master-port", QString::number(port),
                                    "--timeout", "1"});
      QVERIFY2(r.exitCode == 1 && r.err.contains("rank 1 could not reach rank 0 at 127.0.0.1:" + QString::number(port)),
               qPrintable(command + ": " + r.err));
      // Said once: LibTorch's own log line of the time-out (and glog's notice) are not shown...
      QVERIFY2(r.err.trimmed().count('\n') == 0, qPrintable(command + ": " + r.err));
      if (command == "train") {  // ...unless the person asks for LibTorch's logging
        qputenv("TORCH_CPP_LOG_LEVEL", "INFO");
        qputenv("GLOG_minloglevel", "0");
        r = runCli(what + QStringList{"--world-size", "2", "--rank", "1", "--master-port", QString::number(port),
                                      "--timeout", "1"});
        qunsetenv("TORCH_CPP_LOG_LEVEL");
        qunsetenv("GLOG_minloglevel");
        QVERIFY2(r.exitCode == 1 && r.err.trimmed().count('\n') > 0 && r.err.contains("timed out"), qPrintable(r.err));
      }
      r = runCli(what + QStringList{"--world-size", "2", "--backend", "nccl", "--master-port",
                                    QString::number(port), "--timeout", "1"});
      QVERIFY2(r.exitCode == 1 && r.err.contains("nccl", Qt::CaseInsensitive) && !r.err.contains("did not join"),
               qPrintable(command + ": " + r.err));
      saw(command, {"--world-size", "--master-addr", "--master-port", "--timeout", "--rank", "--backend"});
    }
    saw("resume", {"--run"});

    // eval: its own test samples and another dataset, each changing what is scored.
    r = runCli({"eval", "--run", root + "/b"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject whole = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(whole["test_samples"].toInt(), 100);  // the run's own limit
    r = runCli({"eval", "--run", root + "/b", "--test-limit", "40"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["test_samples"].toInt(), 40);
    r = runCli({"eval", "--run", root + "/b", "--test-limit", "0"});  // 0: every test sample
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QJsonDocument::fromJson(r.out.toUtf8()).object()["test_samples"].toInt() > 100);
    QVERIFY(QDir().mkpath(root + "/mnist"));
    // the synthetic images are 16 x 16: another dataset of that shape (fewer images than a batch)
    testing::writeMnistFolder(root + "/mnist", 64, 30, 16, 16, false);
    r = runCli({"eval", "--run", root + "/b", "--dataset", root + "/mnist", "--test-limit", "0"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject other = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(other["test_samples"].toInt(), 30);
    QCOMPARE(other["dataset"].toString(), root + "/mnist");
    saw("eval", {"--run", "--test-limit", "--dataset"});
    QVERIFY(QDir().mkpath(root + "/mnist20"));
    testing::writeMnistFolder(root + "/mnist20", 64, 30, 20, 20, false);
    r = runCli({"eval", "--run", root + "/b", "--dataset", root + "/mnist20"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("holds 20x20 images, but this run's models were trained on synthetic's "
                                               "16x16 images"),
             qPrintable(r.err));
    r = runCli({"eval", "--run", root + "/b", "--ood", root + "/mnist"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject ood = QJsonDocument::fromJson(r.out.toUtf8()).object()["ood"].toObject();
    QCOMPARE(ood["dataset"].toString(), root + "/mnist");
    QCOMPARE(ood["out_samples"].toInt(), 30);
    saw("eval", {"--ood"});
    // --shift: level 0 is the plain evaluation exactly; a turned test set scores otherwise.
    r = runCli({"eval", "--run", root + "/b", "--shift", "rotate:0,90"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject shifted = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonArray levels = shifted["shift"].toArray();
    QCOMPARE(levels.size(), 2);
    QCOMPARE(levels[0].toObject()["kind"].toString(), QString("rotate"));
    QCOMPARE(levels[1].toObject()["level"].toDouble(), 90.0);
    for (const char* key : {"members", "mean_member", "ensemble"}) {
      QVERIFY2(levels[0].toObject()[key] == shifted[key], key);
      QVERIFY2(levels[1].toObject()[key] != shifted[key], key);
    }
    // One --shift per kind, in one call: the same numbers as each kind's own call.
    r = runCli({"eval", "--run", root + "/b", "--shift", "rotate:0,90", "--shift", "noise:0.2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonArray twoKinds = QJsonDocument::fromJson(r.out.toUtf8()).object()["shift"].toArray();
    QCOMPARE(twoKinds.size(), 3);
    QCOMPARE(twoKinds[0], levels[0]);
    QCOMPARE(twoKinds[1], levels[1]);
    r = runCli({"eval", "--run", root + "/b", "--shift", "noise:0.2"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(twoKinds[2], QJsonDocument::fromJson(r.out.toUtf8()).object()["shift"].toArray()[0]);
    QCOMPARE(twoKinds[2].toObject()["kind"].toString(), QString("noise"));
    r = runCli({"eval", "--run", root + "/b", "--shift", "blur:1"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("unknown shift kind \"blur\""), qPrintable(r.err));
    r = runCli({"eval", "--run", root + "/b", "--shift", "noise:-1"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("must be a number of 0 or more"), qPrintable(r.err));
    saw("eval", {"--shift"});

    // predict: one row per image and model, of the run's test set or the one asked for.
    r = runCli({"predict", "--run", root + "/b", "--out", root + "/p.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(testing::readLines(root + "/p.csv").size(), 1 + 100 * 3);  // 2 members and the ensemble
    r = runCli({"predict", "--run", root + "/b", "--test-limit", "40", "--out", root + "/p40.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(testing::readLines(root + "/p40.csv").size(), 1 + 40 * 3);
    r = runCli({"predict", "--run", root + "/b", "--dataset", root + "/mnist", "--out", root + "/pm.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(testing::readLines(root + "/pm.csv").size(), 1 + 30 * 3);
    r = runCli({"predict", "--run", root + "/b", "--shift", "noise:0.3", "--out", root + "/pn.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList plain = testing::readLines(root + "/p.csv"), noisy = testing::readLines(root + "/pn.csv");
    QCOMPARE(noisy.size(), plain.size());
    QVERIFY(noisy[1] != plain[1]);  // the same image's probabilities, moved by the noise
    r = runCli({"predict", "--run", root + "/b", "--shift", "noise:0.1,0.2", "--out", root + "/p2.csv"});
    QVERIFY2(r.exitCode == 1 && r.err.contains("predict takes one --shift level"), qPrintable(r.err));
    saw("predict", {"--run", "--out", "--test-limit", "--dataset", "--shift"});

    // export: --to names the file and its form; --run the run it describes.
    r = runCli({"export", "--run", root + "/b", "--to", root + "/b-metrics.json"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject exported = readJson(root + "/b-metrics.json");
    QCOMPARE(exported["run"].toString(), QString("b"));
    QCOMPARE(exported["config"].toObject()["member_form"].toString(), QString("stacked"));
    QCOMPARE(exported["curves"].toObject()["ensemble"].toObject()["test_accuracy"].toArray().size(), 1);
    r = runCli({"export", "--run", root + "/a", "--to", root + "/a-metrics.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(testing::readLines(root + "/a-metrics.csv"), testing::readLines(root + "/a/metrics.csv"));
    saw("export", {"--run", "--to"});
    // export --tensorboard: the log regenerated from metrics.csv, a folder per model.
    r = runCli({"export", "--run", root + "/a", "--tensorboard", root + "/a-tensorboard"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QDir(root + "/a-tensorboard").entryList(QDir::Dirs | QDir::NoDotAndDotDot), QStringList{"member-0"});
    QCOMPARE(QDir(root + "/a-tensorboard/member-0").entryList({"events.out.tfevents.*"}).size(), 1);
    saw("export", {"--tensorboard"});
    // export --runs: a table row per run, and every metrics.csv value as one long row.
    r = runCli({"export", "--runs", root + "/a," + root + "/b", "--table", root + "/table.csv", "--curves", root + "/curves.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList table = testing::readLines(root + "/table.csv");
    QCOMPARE(table.size(), 3);
    QVERIFY(table[0].startsWith("run,status,mode,model,") &&
            table[0].endsWith(",train_limit,test_limit,lr_schedule,lr_warmup_steps,classes"));
    QVERIFY2(table[1].endsWith(",cosine,3,10"), qPrintable(table[1]));  // a: --lr-schedule cosine --lr-warmup-steps 3
    QVERIFY2(table[1].startsWith("a,completed,data-parallel,lenet,synthetic,cpu*2,2,5,0.03,0.5,0.0005,32,1,1,"), qPrintable(table[1]));
    const double accuracyB = readJson(root + "/b/summary.json")["ensemble"].toObject()["test_accuracy"].toDouble();
    QVERIFY(std::abs(table[2].section(',', 14, 14).toDouble() - accuracyB) < 1e-9);
    int values = 0;
    for (const QString run : {"a", "b"}) {
      for (const QString& line : testing::readLines(root + "/" + run + "/metrics.csv").mid(1)) {
        values += int(line.split(',').mid(3).filter(QRegularExpression(".+")).size());
      }
    }
    const QStringList curves = testing::readLines(root + "/curves.csv");
    QCOMPARE(curves[0], QString("run,model,step,epoch,metric,value"));
    QCOMPARE(curves.size() - 1, values);
    QVERIFY(curves.filter(QRegularExpression("^b,ensemble,\\d+,1,test_accuracy,")).size() == 1);
    // Two runs whose folders share a name (job 001 of two sweeps) are told apart by the
    // folder above (they had one name, and two values per (run, model, step, metric)); the
    // same run twice is refused.
    std::filesystem::create_directories((root + "/again").toStdString());
    std::filesystem::copy((root + "/a").toStdString(), (root + "/again/a").toStdString(),
                          std::filesystem::copy_options::recursive);
    r = runCli({"export", "--runs", root + "/a," + root + "/again/a", "--table", root + "/same-name.csv", "--curves",
                root + "/same-name-curves.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString topFolder = QFileInfo(root).fileName();
    const QStringList sameName = testing::readLines(root + "/same-name.csv");
    QVERIFY2(sameName.size() == 3 && sameName[1].startsWith(topFolder + "/a,") && sameName[2].startsWith("again/a,"),
             qPrintable(sameName.join('\n')));
    QSet<QString> keys;
    const QStringList sameNameCurves = testing::readLines(root + "/same-name-curves.csv").mid(1);
    for (const QString& line : sameNameCurves) keys.insert(line.section(',', 0, 2) + ',' + line.section(',', 4, 4));
    QCOMPARE(keys.size(), sameNameCurves.size());
    r = runCli({"export", "--runs", root + "/a," + root + "/./a", "--table", root + "/twice.csv"});
    QVERIFY2(r.exitCode != 0 && r.err.contains("twice") && !QFileInfo::exists(root + "/twice.csv"), qPrintable(r.err));
    // A folder of runs (a sweep's) stands for its runs; a folder whose name holds a comma is
    // read whole (a sweep's folder had been refused as a run without summary.json, sending
    // the user to `resume`; "x, y" had been split into two folders that do not exist).
    std::filesystem::copy((root + "/b").toStdString(), (root + "/again/b2").toStdString(),
                          std::filesystem::copy_options::recursive);
    std::filesystem::copy((root + "/b").toStdString(), (root + "/x, y").toStdString(),
                          std::filesystem::copy_options::recursive);
    r = runCli({"export", "--runs", root + "/again," + root + "/x, y", "--table", root + "/folders.csv"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList folders = testing::readLines(root + "/folders.csv");
    QVERIFY2(folders.size() == 4 && folders[1].startsWith("a,") && folders[2].startsWith("b2,") &&
                 folders[3].startsWith("\"x, y\","),
             qPrintable(folders.join('\n')));
    // One run of the folder that cannot be read (its config.json lost) is left out and named,
    // with the command that writes the file again; the others' rows are written, and the exit
    // status says the table lacks a run (the whole table had been refused).
    std::filesystem::copy((root + "/b").toStdString(), (root + "/again/b3").toStdString(),
                          std::filesystem::copy_options::recursive);
    QVERIFY(QFile::remove(root + "/again/b3/config.json"));
    r = runCli({"export", "--runs", root + "/again", "--table", root + "/left-out.csv"});
    QVERIFY2(r.exitCode == 1 &&
                 r.err.contains(root + "/left-out.csv leaves out " + root + "/again/b3: " + root +
                                "/again/b3/config.json is missing; ensemble-lab-cli resume --run " + root + "/again/b3") &&
                 r.err.contains("wrote " + root + "/left-out.csv (2 of 3 runs)"),
             qPrintable(r.err));
    const QStringList leftOut = testing::readLines(root + "/left-out.csv");
    QVERIFY2(leftOut.size() == 3 && leftOut[1].startsWith("a,") && leftOut[2].startsWith("b2,"), qPrintable(leftOut.join('\n')));
    QVERIFY(QDir(root + "/again/b3").removeRecursively());
    for (const auto& [listed, reason] : std::vector<std::pair<QString, QString>>{
             {root + "/no-such-run", "names " + root + "/no-such-run, which does not exist"},
             {root + "/a-tensorboard", "neither a run folder"}}) {
      r = runCli({"export", "--runs", listed, "--table", root + "/refused.csv"});
      QVERIFY2(r.exitCode == 1 && r.err.contains(reason) && !QFileInfo::exists(root + "/refused.csv"), qPrintable(r.err));
    }
    r = runCli({"export", "--runs", root + "/a"});
    QVERIFY2(r.exitCode == 2 && r.err.contains("needs --table FILE.csv"), qPrintable(r.err));
    // The two forms' flags mixed: refused (--run beside --runs had been dropped without a word).
    r = runCli({"export", "--run", root + "/b", "--runs", root + "/a", "--table", root + "/mixed.csv"});
    QVERIFY2(r.exitCode == 2 && r.err.contains("not flags of both") && !QFileInfo::exists(root + "/mixed.csv"), qPrintable(r.err));
    saw("export", {"--runs", "--table", "--curves"});

    // import: CSV rows of a label and 24 pixels, 4x6 by --size; the folder it writes trains.
    {
      QByteArray train, test;
      for (int i = 0; i < 12; ++i) {
        QByteArray row = QByteArray::number(i % 3);
        for (int j = 0; j < 24; ++j) row += "," + QByteArray::number((i * 5 + j) % 256);
        train += row + "\n";
        if (i < 6) test += row + "\n";
      }
      QVERIFY(testing::writeFile(root + "/train.csv", train) && testing::writeFile(root + "/test.csv", test));
      r = runCli({"import", "--train", root + "/train.csv", "--test", root + "/test.csv", "--to", root + "/imported",
                  "--size", "4x6"});
      QVERIFY2(r.exitCode == 0 && r.out.contains("wrote " + root + "/imported: 12 training and 6 test images of 4x6, "
                                                 "3 classes; train on it with --dataset " + root + "/imported"),
               qPrintable(r.out + r.err));
      r = runCli({"train", "--dataset", root + "/imported", "--mode", "single", "--devices", "cpu", "--epochs", "1",
                  "--batch-size", "4", "--out", root + "/imported-run"});
      QVERIFY2(r.exitCode == 0 && r.err.contains("12 training images of 4x6, 3 classes"), qPrintable(r.err));
      r = runCli({"import", "--train", root + "/train.csv", "--test", root + "/test.csv", "--to", root + "/square"});
      QVERIFY2(r.exitCode == 1 && r.err.contains("hold 24 pixels after their label, not a square number: give the "
                                                 "images' size, rows x columns (ensemble-lab-cli import --size "
                                                 "ROWSxCOLUMNS)"),
               qPrintable(r.err));
      // --npz: the same images flattened (N x 24) in Keras's four arrays, 4x6 by --size.
      const QByteArray pixels = [&] {
        QByteArray bytes;
        for (int i = 0; i < 12; ++i) {
          for (int j = 0; j < 24; ++j) bytes += char((i * 5 + j) % 256);
        }
        return bytes;
      }();
      QByteArray labels;
      for (int i = 0; i < 12; ++i) labels += char(i % 3);
      QVERIFY(testing::writeFile(root + "/mnist.npz",
                                 npz_files::zipArchive({{"x_train.npy", npz_files::npyFile("|u1", {12, 24}, pixels)},
                                                      {"y_train.npy", npz_files::npyFile("|u1", {12}, labels)},
                                                      {"x_test.npy", npz_files::npyFile("|u1", {6, 24}, pixels.left(6 * 24))},
                                                      {"y_test.npy", npz_files::npyFile("|u1", {6}, labels.left(6))}},
                                                     8)));
      r = runCli({"import", "--npz", root + "/mnist.npz", "--to", root + "/from-npz", "--size", "4x6"});
      QVERIFY2(r.exitCode == 0 && r.out.contains("wrote " + root + "/from-npz: 12 training and 6 test images of 4x6, "
                                                 "3 classes"),
               qPrintable(r.out + r.err));
      for (const char* file : {"train-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {  // the CSV's numbers, byte for byte
        QFile fromNpz(root + "/from-npz/" + file), fromCsv(root + "/imported/" + file);
        QVERIFY(fromNpz.open(QIODevice::ReadOnly) && fromCsv.open(QIODevice::ReadOnly));
        QCOMPARE(fromNpz.readAll(), fromCsv.readAll());
      }
      saw("import", {"--train", "--test", "--npz", "--to", "--size"});
    }

    // devices --check: all-reduces across the CPU's ranks (and every GPU), within --timeout.
    r = runCli({"devices", "--check", "--timeout", "60"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains("# all-reduce check: gloo across cpu*2 (2 ranks)") && r.out.contains("busbw(GB/s)") &&
                 r.out.contains("# cpu*2: ok"),
             qPrintable(r.out));
    r = runCli({"devices", "--check", "--timeout", "0.000001"});  // too short for any check: named, exit 1
    QVERIFY2(r.exitCode == 1 && r.err.contains("did not finish within 1e-06 s"), qPrintable(r.out + r.err));
    if (!r.out.contains("cuda:")) {  // no GPU was checked: none is blamed
      QVERIFY2(r.err.contains("raise --timeout if this one is busy") && !r.err.contains("nvidia-smi"), qPrintable(r.err));
    }
    saw("devices", {"--check", "--timeout"});

    for (const QString command : {"devices", "train", "resume", "eval", "predict", "export", "sweep", "import"}) {
      r = runCli({"--list-flags", command});
      QCOMPARE(r.exitCode, 0);
      QSet<QString> accepted;
      for (const QString& flag : r.out.split('\n', Qt::SkipEmptyParts)) accepted.insert(flag);
      const QSet<QString> unseen = accepted - shown.value(command);
      QVERIFY2(unseen.isEmpty(), qPrintable(command + " accepts flags no probe shows an effect of: " +
                                            QStringList(unseen.values()).join(", ")));
      if (command != "devices") QVERIFY(!accepted.isEmpty());
    }
  }

  void listsDevices() {
    const Result r = runCli({"devices"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QRegularExpression("\\n-\\s+cpu\\s+.+GiB")), qPrintable(r.out));
    if (ensemble::cudaDeviceCount() > 0) return;
    // No GPU: the listing says why, in CUDA's own words where this build has CUDA.
    const QString why = QString::fromStdString(ensemble::whyNoCudaDevice());
    QVERIFY2(r.out.contains("no CUDA device: " + why + "\n"), qPrintable(r.out));
    expectCudasOwnWords(why);
  }

  void gpusAreRefusedWhereThereIsNone_data() {
    QTest::addColumn<QString>("devices");
    QTest::addColumn<QString>("named");
    QTest::newRow("cuda:0") << "cuda:0" << "device cuda:0 does not exist";
    QTest::newRow("cuda*2") << "cuda*2" << "device 'cuda*2' asks for 2 GPUs";
    QTest::newRow("all") << "all" << "device 'all' means every GPU";
    QTest::newRow("cpu and cuda:1") << "cpu,cuda:1" << "device cuda:1 does not exist";
  }
  void gpusAreRefusedWhereThereIsNone() {
    if (ensemble::cudaDeviceCount() > 0) QSKIP("this machine has a GPU");
    QFETCH(QString, devices);
    QFETCH(QString, named);
    const QString out = m_dir.filePath("refused-" + QString::number(qHash(devices)));
    const Result r = runCli({"train", "--dataset", "synthetic", "--epochs", "1", "--devices", devices, "--out", out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(named), qPrintable(r.err));
    const QString why = QString::fromStdString(ensemble::whyNoCudaDevice());
    QVERIFY2(r.err.contains(why), qPrintable(r.err));
    expectCudasOwnWords(why);
    QCOMPARE(r.err.trimmed().count('\n'), 0);  // one line
    QVERIFY2(!QFileInfo::exists(out), "a refused device must not leave a run folder behind");
  }

  // The torch wheels export a copy of libstdc++'s std::filesystem (another GCC's), and the
  // dynamic linker used to bind our calls to it: its remove_all crashed every bench run on
  // the GPU machine. Every program of ours names libstdc++ first (CMakeLists.txt), so each
  // std::filesystem call of the CLI's engine (the half that links LibTorch), in a run that
  // writes its folder, binds to the system's. Run directly: started by the front door, its
  // lines in the log would carry the front door's name (the dynamic linker names the program
  // by argv[0], which exec keeps).
  void theStandardLibraryIsTheSystemsNotTorchsCopy() {
    QTemporaryDir dir;
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("LD_DEBUG", "bindings");
    environment.insert("LD_DEBUG_OUTPUT", dir.filePath("bindings"));
    process.setProcessEnvironment(environment);
    process.start(ENSEMBLELAB_CLI_ENGINE_PATH, {"train", "--dataset", "synthetic", "--epochs", "1", "--train-limit", "256",
                                                "--mode", "single", "--devices", "cpu", "--out", dir.filePath("run")});
    QVERIFY(process.waitForFinished(300000));
    QCOMPARE(process.exitCode(), 0);
    const QRegularExpression binding(R"(binding file \S*ensemble-lab-cli-engine \[0\] to (\S+) .*symbol `(_ZN\S*filesystem\S*)')");
    int calls = 0;
    QStringList elsewhere;
    for (const QString& name : QDir(dir.path()).entryList({"bindings.*"}, QDir::Files)) {
      for (const QString& line : testing::readLines(dir.filePath(name))) {
        const QRegularExpressionMatch match = binding.match(line);
        if (!match.hasMatch()) continue;
        ++calls;
        if (!match.captured(1).contains("libstdc++")) elsewhere << match.captured(2) + " -> " + match.captured(1);
      }
    }
    QVERIFY2(calls > 0, "the run made no std::filesystem call the dynamic linker reported");
    QVERIFY2(elsewhere.isEmpty(), qPrintable(elsewhere.join("\n")));
  }

  void cudaGraphsAreRefusedWhereAStepCannotBeCaptured_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("named");
    // The Debian build has no CUDA at all; the CUDA build here has no GPU: either way the
    // CPU's replicas are named, or the missing CUDA.
    const QString where = ensemble::cudaGraphsBuilt() ? "this run's devices are cpu" : "this build's LibTorch has no CUDA";
    QTest::newRow("an ensemble on the CPU") << QStringList{"--devices", "cpu*2"} << where;
    QTest::newRow("a single model on the CPU") << QStringList{"--mode", "single", "--devices", "cpu"} << where;
  }
  void cudaGraphsAreRefusedWhereAStepCannotBeCaptured() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, named);
    const QString out = m_dir.filePath("graphs-refused-" + QString::number(qHash(arguments.join(' '))));
    const Result r = runCli(QStringList{"train", "--dataset", "synthetic", "--epochs", "1", "--cuda-graphs", "on",
                                        "--out", out} + arguments);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("--cuda-graphs on captures"), qPrintable(r.err));
    QVERIFY2(r.err.contains(named), qPrintable(r.err));
    QVERIFY2(r.err.contains("--cuda-graphs off"), qPrintable(r.err));  // the way out
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY2(!QFileInfo::exists(out), "a refused setting must not leave a run folder behind");
  }

  void badInputFailsWithAClearMessage_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("exitCode");
    const QStringList quick{"--dataset", "synthetic", "--epochs", "1"};
    QTest::newRow("missing dataset folder") << QStringList{"train", "--dataset", "/no/such/folder"} << "does not exist" << 1;
    QTest::newRow("wrong magic") << QStringList{"train", "--dataset", "@broken/magic"} << "wrong IDX magic number" << 1;
    QTest::newRow("truncated file") << QStringList{"train", "--dataset", "@broken/truncated"} << "is truncated" << 1;
    QTest::newRow("count mismatch") << QStringList{"train", "--dataset", "@broken/count"} << "the two files must come from the same split" << 1;
    QTest::newRow("a stray label") << QStringList{"train", "--dataset", "@broken/label"} << "so classes 0-200, but only" << 1;
    QTest::newRow("batch 0") << (QStringList{"train", "--batch-size", "0"} + quick) << "batch size (batch_size) must be at least 1" << 1;
    QTest::newRow("batch > training set") << (QStringList{"train", "--batch-size", "300", "--train-limit", "200"} + quick) << "larger than the 200 training samples; use a smaller --batch-size or a larger --train-limit" << 1;
    // Without a limit, a larger one cannot help (it had been suggested all the same).
    QTest::newRow("batch > the dataset") << QStringList{"train", "--dataset", "synthetic", "--batch-size", "4096"}
                                         << "larger than the 2048 training samples the dataset holds; use a --batch-size of at most 2048" << 1;
    QTest::newRow("negative lr") << (QStringList{"train", "--lr", "-1"} + quick) << "learning rate (lr) must be a positive" << 1;
    QTest::newRow("zero lr") << (QStringList{"train", "--lr", "0"} + quick) << "learning rate (lr) must be a positive" << 1;
    QTest::newRow("NaN lr") << (QStringList{"train", "--lr", "nan"} + quick) << "learning rate (lr) must be a positive" << 1;
    QTest::newRow("momentum 1") << (QStringList{"train", "--momentum", "1"} + quick) << "momentum must be in [0, 1)" << 1;
    QTest::newRow("lr not a number") << (QStringList{"train", "--lr", "fast"} + quick) << "--lr expects a number" << 1;
    // A number too large or small to hold is said to be out of range, with the range: "expects
    // a number" would send the user looking for a typo.
    // C's hex floats, which strtod reads, are no number here: "0x10" had trained at lr 16.
    QTest::newRow("lr in hex") << (QStringList{"train", "--lr", "0x10"} + quick) << "--lr expects a number, got '0x10'" << 1;
    QTest::newRow("momentum as a hex float") << (QStringList{"train", "--momentum", "0x0.8"} + quick)
                                             << "--momentum expects a number, got '0x0.8'" << 1;
    QTest::newRow("lr too large to hold") << (QStringList{"train", "--lr", "1e400"} + quick)
                                          << "--lr 1e400 is out of range: a number is at most about 1.8e308 in size" << 1;
    QTest::newRow("lr too small to hold") << (QStringList{"train", "--lr", "1e-400"} + quick)
                                          << "--lr 1e-400 is out of range: a number other than 0 is at least about 2.2e-308" << 1;
    QTest::newRow("batch size too large to hold")
        << (QStringList{"train", "--batch-size", "99999999999999999999"} + quick)
        << "--batch-size 99999999999999999999 is out of range: an integer is from -9223372036854775808 to 9223372036854775807" << 1;
    QTest::newRow("devices --check with a timeout too large to hold")
        << QStringList{"devices", "--check", "--timeout", "1e400"} << "--timeout 1e400 is out of range" << 1;
    QTest::newRow("devices --check with a timeout that is no number")
        << QStringList{"devices", "--check", "--timeout", "soon"} << "--timeout expects a number, got 'soon'" << 1;
    QTest::newRow("devices --timeout without --check") << QStringList{"devices", "--timeout", "5"}
                                                       << "--timeout only goes with --check" << 2;
    QTest::newRow("deterministic neither on nor off") << (QStringList{"train", "--deterministic", "mostly"} + quick)
                                                      << "--deterministic takes on or off, got 'mostly'" << 1;
    QTest::newRow("an ensemble of one") << (QStringList{"train", "--mode", "ensemble", "--devices", "cpu"} + quick)
                                        << "an ensemble needs two members or more, but the devices (cpu) hold one" << 1;
    QTest::newRow("missing device") << (QStringList{"train", "--devices", "cuda:0"} + quick) << "does not exist" << 1;
    QTest::newRow("malformed config") << (QStringList{"train", "--config", "@broken/config.json"} + quick) << "is not valid JSON" << 1;
    // A run folder given as the config is named a folder (it read as "not valid JSON (at byte 1)"),
    // with the config.json it holds.
    QTest::newRow("a folder as the config") << (QStringList{"train", "--config", "@broken"} + quick)
                                            << "config file @broken is a folder; a config is a JSON file, such as a run "
                                               "folder's config.json (@broken/config.json is one)" << 1;
    // A value out of range is named with the file that gave it, where it is to be fixed.
    QTest::newRow("lr out of range in the config") << (QStringList{"train", "--config", "@broken/negative-lr.json"} + quick)
                                                   << "@broken/negative-lr.json: learning rate (lr) must be a positive" << 1;
    QTest::newRow("lr out of range over the config") << (QStringList{"train", "--config", "@broken/negative-lr.json",
                                                                     "--lr", "0.1", "--momentum", "1"} + quick)
                                                     << "error: momentum must be in [0, 1)" << 1;
    QTest::newRow("resume without checkpoint") << QStringList{"resume", "--run", "@broken"} << "no checkpoint in" << 1;
    QTest::newRow("resume truncated checkpoint") << QStringList{"resume", "--run", "@truncated-run"} << "is truncated" << 1;
    // Unknown names are answered with the one most likely meant, where one stands out
    // (core/common/LikelyName.h): another tool's name for it, a typo.
    QTest::newRow("unknown flag") << QStringList{"train", "--learning-rate", "0.1"}
                                  << "unknown flag --learning-rate for train (did you mean --lr?); "
                                     "`ensemble-lab-cli train --help` lists its flags" << 2;
    QTest::newRow("--members") << QStringList{"train", "--members", "4"}
                               << "unknown flag --members for train (did you mean --devices? an ensemble has one member "
                                  "per device: cpu*4 or cuda:0*4 trains four)" << 2;
    QTest::newRow("unknown command") << QStringList{"fly"} << "unknown command 'fly'; the commands are" << 2;
    QTest::newRow("a command mistyped") << QStringList{"trian"} << "unknown command 'trian' (did you mean train?)" << 2;
    // A flag given twice is refused by name rather than keeping only the last.
    QTest::newRow("predict's --shift twice")
        << QStringList{"predict", "--run", "@broken", "--shift", "rotate:5", "--shift", "noise:0.1", "--out", "@broken/p.csv"}
        << "--shift is given twice; give it once (only sweep's --grid and eval's --shift repeat)" << 2;
    QTest::newRow("eval's --shift twice for one kind")
        << QStringList{"eval", "--run", "@broken", "--shift", "rotate:5", "--shift", "noise:0.1", "--shift", "rotate:10"}
        << "--shift rotate:5 and --shift rotate:10 are both rotate; give its levels in one --shift (rotate:L1,L2,...)" << 2;
    QTest::newRow("--out twice") << QStringList{"predict", "--run", "@broken", "--out", "@broken/a.csv", "--out", "@broken/b.csv"}
                                 << "--out is given twice" << 2;
    // An empty value is refused, whatever the flag, rather than read as its default or as ".".
    QTest::newRow("empty --devices") << (QStringList{"train", "--devices", ""} + quick) << "--devices needs a value, got an empty one" << 2;
    QTest::newRow("empty --out=") << QStringList{"predict", "--run", "@broken", "--out="} << "--out needs a value, got an empty one" << 2;
    QTest::newRow("empty --run") << QStringList{"eval", "--run", ""} << "--run needs a value, got an empty one" << 2;
    QTest::newRow("empty --tensorboard") << QStringList{"export", "--run", "@broken", "--tensorboard", ""}
                                         << "--tensorboard needs a value, got an empty one" << 2;
    QTest::newRow("--tensorboard into the run folder") << QStringList{"export", "--run", "@truncated-run", "--tensorboard", "@truncated-run/"}
                                                       << "is a run folder" << 1;
    QTest::newRow("--table and --curves one file")
        << QStringList{"export", "--runs", "@truncated-run", "--table", "@broken/t.csv", "--curves", "@broken/./t.csv"}
        << "--table and --curves name the same file" << 1;
    QTest::newRow("resnet18 on 8x8 images") << QStringList{"train", "--dataset", "@broken/small", "--model", "resnet18",
                                                           "--mode", "single", "--devices", "cpu", "--epochs", "1", "--batch-size", "10"}
                                            << "the resnet18 model needs images of at least 16x16 pixels" << 1;
    QTest::newRow("a flag where a value belongs") << (QStringList{"train", "--lr", "--epochs", "1"}) << "--lr needs a value" << 2;
    QTest::newRow("an unknown flag at the end") << QStringList{"devices", "--bogus"} << "unknown flag --bogus for devices" << 2;
    QTest::newRow("a file as the dataset folder") << QStringList{"train", "--dataset", "@broken/config.json"}
                                                  << "dataset folder @broken/config.json is a file, not a folder" << 1;
    QTest::newRow("a file as the run folder") << QStringList{"eval", "--run", "@broken/config.json"}
                                              << "run folder @broken/config.json is a file, not a folder" << 1;
    QTest::newRow("--lr twice") << (QStringList{"train", "--lr", "0.1", "--lr=0.2"} + quick) << "--lr is given twice" << 2;
    // A required flag left out is a usage mistake, as an unknown one is.
    QTest::newRow("resume without --run") << QStringList{"resume"} << "resume needs --run DIR" << 2;
    QTest::newRow("eval without --run") << QStringList{"eval"} << "eval needs --run DIR" << 2;
    QTest::newRow("predict without --out") << QStringList{"predict", "--run", "@broken"} << "predict needs --out" << 2;
    QTest::newRow("export without --to") << QStringList{"export", "--run", "@broken"} << "export needs --to" << 2;
    QTest::newRow("sweep without --grid") << QStringList{"sweep"} << "sweep needs --grid" << 2;
    QTest::newRow("import without --test") << QStringList{"import", "--train", "@broken/a.csv", "--to", "@broken/i"}
                                           << "import needs --test (import --train TRAIN.csv --test TEST.csv --to FOLDER" << 2;
    QTest::newRow("import of CSV and .npz at once") << QStringList{"import", "--npz", "a.npz", "--train", "a.csv", "--to",
                                                                   "@broken/i"}
                                                    << "import takes --npz ARCHIVE.npz, or --train and --test CSV files, "
                                                       "not both" << 2;
    QTest::newRow("import --size of one number") << QStringList{"import", "--train", "a.csv", "--test", "b.csv", "--to",
                                                                "@broken/i", "--size", "28"}
                                                 << "--size expects ROWSxCOLUMNS, two whole numbers of 1 to 99999 (28x28), "
                                                    "got '28'" << 1;
    QTest::newRow("export to another kind of file") << QStringList{"export", "--run", "@broken", "--to", "m.txt"}
                                                   << "name a .csv file" << 1;
  }
  void badInputFailsWithAClearMessage() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, expected);
    QFETCH(int, exitCode);
    QTemporaryDir dir;
    const QString broken = dir.filePath("broken");
    for (const QString kind : {"magic", "truncated", "count", "label", "small"}) {
      QVERIFY(QDir().mkpath(broken + "/" + kind));
      testing::writeMnistFolder(broken + "/" + kind, 30, 10, 8, 8, kind == "truncated");
    }
    QByteArray bad = testing::idxBytes({30, 8, 8}, testing::pattern(30 * 64));
    bad[2] = char(0x07);
    bad[0] = char(0x42);
    QVERIFY(testing::writeFile(broken + "/magic/train-images-idx3-ubyte", bad));
    const QByteArray whole = testing::idxBytes({10, 8, 8}, testing::pattern(640));
    QVERIFY(testing::writeFile(broken + "/truncated/t10k-images-idx3-ubyte.gz", testing::gzipped(whole.left(300))));
    QVERIFY(testing::writeFile(broken + "/count/t10k-labels-idx1-ubyte", testing::idxBytes({9}, QByteArray(9, 1))));
    QByteArray labels(30, 3);
    labels[29] = char(200);
    QVERIFY(testing::writeFile(broken + "/label/train-labels-idx1-ubyte", testing::idxBytes({30}, labels)));
    QVERIFY(testing::writeFile(broken + "/config.json", "{\"lr\": "));
    QVERIFY(testing::writeFile(broken + "/negative-lr.json", "{\"lr\": -1}"));
    const QString truncatedRun = dir.filePath("truncated-run");
    if (arguments.contains("@truncated-run")) {
      const Result made = runCli({"train", "--dataset", "synthetic", "--train-limit", "256", "--epochs", "1",
                                  "--devices", "cpu", "--mode", "single", "--out", truncatedRun});
      QCOMPARE(made.exitCode, 0);
      QVERIFY(QFile::resize(truncatedRun + "/checkpoints/step-000000002/member-0.pt", 50));
    }
    QStringList resolved;
    for (QString a : arguments) resolved << a.replace("@truncated-run", truncatedRun).replace("@broken", broken);
    const QString out = dir.filePath("out");
    if (resolved.first() == "train") resolved << "--out" << out;

    const Result r = runCli(resolved);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(QString(expected).replace("@broken", broken)), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);  // one line
    QVERIFY2(!QFileInfo::exists(out), "bad input must not leave a run folder behind");
  }

  void nanLossExitsNonZeroAndKeepsTheMetrics() {
    const QString out = m_dir.filePath("nan");
    const Result r = runCli({"train", "--dataset", "synthetic", "--mode", "single", "--lr", "1e9",
                             "--log-every", "1", "--out", out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("became NaN") || r.err.contains("became infinite"), qPrintable(r.err));
    QVERIFY(testing::readLines(out + "/metrics.csv").size() > 1);
    QCOMPARE(readJson(out + "/summary.json")["status"].toString(), QString("failed"));
    // Scores are read some steps late: summary.json counts the steps before the one that
    // diverged, as the message names it, not those trained on after it.
    const QString late = m_dir.filePath("nan-late");
    const Result l = runCli({"train", "--dataset", "synthetic", "--mode", "single", "--lr", "1e9", "--log-every", "10",
                             "--out", late});
    const QRegularExpressionMatch step = QRegularExpression("at step (\\d+) ").match(l.err);
    QVERIFY2(l.exitCode == 1 && step.hasMatch() && step.captured(1).toInt() < 9, qPrintable(l.err));
    QCOMPARE(readJson(late + "/summary.json")["steps_completed"].toInt(), step.captured(1).toInt() - 1);
  }

  void sigintStopsCleanlyAndResumeFinishes() {
    const QString out = m_dir.filePath("interrupted");
    QProcess process;
    process.start(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--devices", "cpu*2",
                                         "--epochs", "6", "--out", out});
    QVERIFY(process.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += process.readAllStandardError()).contains("epoch 1/6 done"), 120000);
    // A second process may not write the run meanwhile (RunWriterLock): refused, saying why,
    // before anything of it is read or restarted.
    const Result meanwhile = runCli({"resume", "--run", out});
    QCOMPARE(meanwhile.exitCode, 1);
    QVERIFY2(meanwhile.err.contains("is being trained by another process") && !meanwhile.err.contains("starting it again"),
             qPrintable(meanwhile.err));
    QCOMPARE(process.state(), QProcess::Running);
    ::kill(pid_t(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    err += process.readAllStandardError();
    QCOMPARE(process.exitCode(), 130);
    QVERIFY2(err.contains("resume with: ensemble-lab-cli resume --run"), err.constData());
    QCOMPARE(readJson(out + "/summary.json")["status"].toString(), QString("stopped"));

    const Result resumed = runCli({"resume", "--run", out});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY(resumed.err.contains("resuming"));
    const QJsonObject summary = readJson(out + "/summary.json");
    QCOMPARE(summary["status"].toString(), QString("completed"));
    QCOMPARE(summary["epochs_completed"].toInt(), 6);
  }

  // A hang-up (a closed terminal, a dropped ssh connection) stops a run as Ctrl-C does, and a
  // reader that goes away (`train | head`) does not end it: both had killed the run and left
  // its summary "running" (and the table of runs said so, of a run nobody trained).
  void aHangUpStopsTheRunAndAClosedPipeDoesNotEndIt() {
    const QString hungUp = m_dir.filePath("hung-up");
    QProcess process;
    process.start(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "6", "--out", hungUp});
    QVERIFY(process.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += process.readAllStandardError()).contains("epoch 1/6 done"), 120000);
    ::kill(pid_t(process.processId()), SIGHUP);
    QVERIFY(process.waitForFinished(60000));
    err += process.readAllStandardError();
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 130, err.constData());
    QVERIFY2(err.contains("resume with: ensemble-lab-cli resume --run"), err.constData());
    QCOMPARE(readJson(hungUp + "/summary.json")["status"].toString(), QString("stopped"));
    QVERIFY(QFileInfo(hungUp + "/checkpoints/latest").exists());

    // `head -1` reads the first line and goes; the run trains on to its end (its exit status,
    // PIPESTATUS[0], is 0: it had been 141, killed by SIGPIPE).
    const QString piped = m_dir.filePath("piped");
    process.start("bash", {"-c", "\"$0\" train --dataset synthetic --devices 'cpu*2' --epochs 2 --log-every 1 --out \"$1\" "
                                 "2>&1 | head -1; exit ${PIPESTATUS[0]}",
                           ENSEMBLELAB_CLI_PATH, piped});
    QVERIFY(process.waitForFinished(300000));
    QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
             qPrintable(QString("exit %1: %2").arg(process.exitCode()).arg(QString::fromUtf8(process.readAll()))));
    QCOMPARE(readJson(piped + "/summary.json")["status"].toString(), QString("completed"));

    // A process killed outright leaves "running": the table calls it what it is.
    QJsonObject summary = readJson(piped + "/summary.json");
    summary["status"] = "running";
    QFile file(piped + "/summary.json");
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(QJsonDocument(summary).toJson());
    file.close();
    const Result table = runCli({"export", "--runs", piped, "--table", m_dir.filePath("killed.csv")});
    QVERIFY2(table.exitCode == 0, qPrintable(table.err));
    QVERIFY2(testing::readLines(m_dir.filePath("killed.csv")).value(1).startsWith("piped,interrupted,"),
             qPrintable(testing::readLines(m_dir.filePath("killed.csv")).join('\n')));
  }

  // A completed run whose summary.json is damaged or gone: every command that needs it says
  // how to write it again, and resume writes it from the last checkpoint, as it was (resume
  // had said "nothing to resume", export only "the run folder is damaged"). Its metrics.csv
  // too, from the checkpoint's copy.
  void resumeWritesAgainACompletedRunsDamagedSummary() {
    const QString run = m_dir.filePath("summary-damaged");
    Result r = runCli({"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "2", "--train-limit", "512",
                       "--out", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject original = readJson(run + "/summary.json");
    for (const bool deleted : {false, true}) {
      QFile file(run + "/summary.json");
      QVERIFY(deleted ? file.remove() : file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write("garbage") > 0);
      file.close();
      r = runCli({"export", "--run", run, "--to", m_dir.filePath("damaged.json")});
      QVERIFY2(r.exitCode == 1 && r.err.contains("`ensemble-lab-cli resume --run " + run + "` writes it again"), qPrintable(r.err));
      r = runCli({"resume", "--run", run});
      QVERIFY2(r.exitCode == 0 && r.err.contains("wrote it again from the last checkpoint"), qPrintable(r.err));
      QCOMPARE(readJson(run + "/summary.json"), original);
    }
    // Its metrics.csv cut short, its config.json removed: the last checkpoint writes them
    // again, byte for byte, and several files at once are said together. Export, meanwhile,
    // says how to get them back.
    const QByteArray metrics = testing::fileBytes(run + "/metrics.csv"), config = testing::fileBytes(run + "/config.json");
    QVERIFY(QFile::remove(run + "/config.json"));
    r = runCli({"export", "--run", run, "--to", m_dir.filePath("no-config.json")});
    QVERIFY2(r.exitCode == 1 && r.err.contains("config.json") &&
                 r.err.contains("config.json is missing; ensemble-lab-cli resume --run " + run +
                                " writes it again from the run's last checkpoint"),
             qPrintable(r.err));
    r = runCli({"resume", "--run", run});
    QVERIFY2(r.exitCode == 0 && r.err.contains("but its config.json was missing, damaged or changed; wrote it again from "
                                               "the last checkpoint"),
             qPrintable(r.err));
    QCOMPARE(testing::fileBytes(run + "/config.json"), config);
    for (const bool alsoSummary : {false, true}) {
      QVERIFY(QFile::resize(run + "/metrics.csv", metrics.size() / 3));
      if (alsoSummary) QVERIFY(QFile::remove(run + "/summary.json"));
      r = runCli({"resume", "--run", run});
      const QString said = alsoSummary ? "its summary.json and metrics.csv were missing, damaged or changed; wrote them "
                                         "again from the last checkpoint"
                                       : "its metrics.csv was missing, damaged or changed; wrote it again from the last checkpoint";
      QVERIFY2(r.exitCode == 0 && r.err.contains(said), qPrintable(r.err));
      QCOMPARE(testing::fileBytes(run + "/metrics.csv"), metrics);
      QCOMPARE(readJson(run + "/summary.json"), original);
    }
    r = runCli({"resume", "--run", run});  // whole again: nothing to do
    QVERIFY2(r.exitCode == 0 && r.err.contains("nothing to resume"), qPrintable(r.err));
  }

  // A class the test split has and the training never sees (here: a train limit on labels
  // 0-9 in turn keeps 0-7) is said as the run starts, with the flag that may be why.
  void aClassTrainingNeverSeesIsWarnedOf() {
    QTemporaryDir dir;
    testing::writeMnistFolder(dir.path(), 64, 30, 8, 8, false);
    const Result r = runCli({"train", "--dataset", dir.path(), "--mode", "single", "--devices", "cpu", "--train-limit", "8",
                             "--batch-size", "8", "--epochs", "1", "--out", dir.filePath("run")});
    QVERIFY2(r.exitCode == 0 && r.err.contains("ensemble-lab-cli: warning: the training split holds no image of classes "
                                               "8, 9 (2 of 10 classes), which the test split holds ") &&
                 r.err.contains("; --train-limit 8 keeps the training file's first images"),
             qPrintable(r.err));
  }

  // A dataset folder given relative to where the run started is recorded as an absolute
  // path, so the run resumes and evaluates from any other working directory.
  void aRelativeDatasetFolderIsRecordedAbsolute() {
    QTemporaryDir dir;
    const QString root = dir.path();
    QVERIFY(QDir().mkpath(root + "/data/digits"));
    testing::writeMnistFolder(root + "/data/digits", 64, 30, 16, 16, false);
    Result r = runCli({"train", "--dataset", "digits", "--mode", "single", "--devices", "cpu", "--batch-size", "32",
                       "--epochs", "1", "--out", root + "/run"},
                      300000, root + "/data");
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // One model's result line: no ensemble figures (disagreement), which the ensemble's line has.
    QVERIFY2(r.out.contains("model test accuracy") && !r.out.contains("disagreement") && !r.out.contains("mean member"),
             qPrintable(r.out));
    QCOMPARE(readJson(root + "/run/config.json")["dataset"].toString(), root + "/data/digits");
    r = runCli({"eval", "--run", root + "/run"});  // from the test's own working directory
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["test_samples"].toInt(), 30);
  }

  // resume takes no --dataset (its run goes on with the data it started with): a dataset
  // folder moved away since is named as what to put back, not as a flag to pass, which
  // eval (that takes --dataset) still says.
  void resumeAsksForTheRunsDatasetBackNotForAFlag() {
    QTemporaryDir dir;
    const QString data = dir.filePath("data"), run = dir.filePath("run");
    Result r = trainOnSmallFolder(data, run, 1);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QDir().rename(data, dir.filePath("moved")));
    r = runCli({"resume", "--run", run});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("dataset folder " + data + ", which this run trained on, does not exist; put the run's "
                            "dataset back there, then resume the run") &&
                 !r.err.contains("--dataset") && !r.err.contains("--out"),
             qPrintable(r.err));
    // eval, which takes --dataset, says whose folder it is and that a test split will do, and
    // --dataset naming the moved folder scores the run; so does the folder back with its test
    // files alone.
    r = runCli({"eval", "--run", run});
    QVERIFY2(r.exitCode == 1 && r.err.contains("pass --dataset") &&
                 r.err.contains(". That is the dataset this run trained on (" + data + "): put it back as it was (its "
                                "two test files will do), or score the run on a folder of the same images with --dataset, of which only the test "
                                "split is read"),
             qPrintable(r.err));
    r = runCli({"eval", "--run", run, "--dataset", dir.filePath("moved")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The folder back, its files moved into a subfolder (as torchvision's MNIST/raw): move them
    // back, not "name that subfolder in --dataset".
    QVERIFY(QDir().mkpath(data) && QDir().rename(dir.filePath("moved"), data + "/raw"));
    r = runCli({"resume", "--run", run});
    QVERIFY2(r.exitCode == 1 &&
                 r.err.contains("dataset folder " + data + ", which this run trained on, no longer holds its MNIST-format "
                                "files, but its subfolder " + data + "/raw does; move them back to " + data) &&
                 !r.err.contains("--dataset"),
             qPrintable(r.err));
  }

  // eval and predict read a run's test split alone: with its training files removed, or
  // changed, since it trained, the run scores as it did (eval had refused the first, naming
  // the missing training file, and the second as a changed dataset).
  void evalReadsTheRunsTestSplitAlone() {
    QTemporaryDir dir;
    const QString data = dir.filePath("data"), run = dir.filePath("run");
    Result r = trainOnSmallFolder(data, run, 1);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli({"eval", "--run", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QJsonObject before = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QVERIFY2(before.contains("test_samples"), qPrintable(r.out));
    r = runCli({"predict", "--run", run, "--out", dir.filePath("before.csv")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    testing::writeMnistFolder(data, 20, 30, 16, 16, false);  // 20 training images now (the test split as it was)
    r = runCli({"eval", "--run", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object(), before);
    QVERIFY(QFile::remove(data + "/train-images-idx3-ubyte") && QFile::remove(data + "/train-labels-idx1-ubyte"));
    r = runCli({"eval", "--run", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object(), before);
    r = runCli({"predict", "--run", run, "--out", dir.filePath("after.csv")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(testing::fileBytes(dir.filePath("after.csv")), testing::fileBytes(dir.filePath("before.csv")));
  }

  // A dataset that lost training images since its run trained is said to have changed, with
  // both counts: not a checkpoint that "belongs to another run", nor a batch size to lower
  // with flags resume does not take.
  void resumeSaysTheDatasetChangedWhenItShrank() {
    QTemporaryDir dir;
    const QString data = dir.filePath("data"), run = dir.filePath("run");
    Result r = trainOnSmallFolder(data, run, 2);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (const int now : {40, 20}) {  // fewer steps per epoch; fewer images than a batch
      testing::writeMnistFolder(data, now, 30, 16, 16, false);
      r = runCli({"resume", "--run", run});
      QCOMPARE(r.exitCode, 1);
      QVERIFY2(r.err.contains(QString("the dataset %1 changed since this run trained: the run recorded 64 training "
                                      "images, it now has %2; put the run's dataset back as it was")
                                  .arg(data)
                                  .arg(now)) &&
                   !r.err.contains("checkpoint") && !r.err.contains("--batch-size"),
               qPrintable(r.err));
    }
    testing::writeMnistFolder(data, 64, 30, 16, 16, false);  // as it was: nothing left to do
    r = runCli({"resume", "--run", run});
    QVERIFY2(r.exitCode == 0 && r.err.contains("nothing to resume"), qPrintable(r.err));
  }

  // As many images as the run trained on, but other ones: said, not trained on (the resume
  // had gone on, exit 0, on data the run never saw, its summary still "reproducible").
  void resumeSaysTheDatasetChangedWhenItsImagesDid() {
    QTemporaryDir dir;
    const QString data = dir.filePath("data"), run = dir.filePath("run");
    Result r = trainOnSmallFolder(data, run, 2);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    for (const QString split : {"train", "t10k"}) {
      const QString images = data + "/" + split + "-images-idx3-ubyte";
      QFile file(images);
      QVERIFY(file.open(QIODevice::ReadWrite) && file.seek(16 + 100));
      char pixel = 0;
      QVERIFY(file.getChar(&pixel) && file.seek(16 + 100) && file.putChar(char(~pixel)));  // one pixel of one image
      file.close();
      r = runCli({"resume", "--run", run});
      QCOMPARE(r.exitCode, 1);
      const QString which = split == "train" ? "training" : "test";
      QVERIFY2(r.err.contains(QString("the dataset %1 changed since this run trained: its %2 images or labels are not "
                                      "the ones the run recorded").arg(data, which)) &&
                   r.err.contains("put the run's dataset back as it was"),
               qPrintable(r.err));
      QVERIFY(file.open(QIODevice::ReadWrite) && file.seek(16 + 100) && file.putChar(pixel));  // back as it was
      file.close();
    }
    r = runCli({"resume", "--run", run});
    QVERIFY2(r.exitCode == 0 && r.err.contains("nothing to resume"), qPrintable(r.err));
  }

  // eval on the run's own dataset, changed since it trained (fewer test images), says so on
  // stderr with both counts, and still scores what is there; unchanged, or on a dataset
  // named by flag, it says nothing of it.
  void evalSaysTheRunsDatasetChanged() {
    QTemporaryDir dir;
    const QString data = dir.filePath("data"), run = dir.filePath("run");
    Result r = trainOnSmallFolder(data, run, 1);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli({"eval", "--run", run});
    QVERIFY2(r.exitCode == 0 && !r.err.contains("changed"), qPrintable(r.err));
    testing::writeMnistFolder(data, 64, 20, 16, 16, false);
    r = runCli({"eval", "--run", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("the run's dataset changed since it trained: it was scored on 30 test images "
                            "(summary.json), its dataset now gives 20"),
             qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["test_samples"].toInt(), 20);
    r = runCli({"eval", "--run", run, "--test-limit", "10"});
    QVERIFY2(r.exitCode == 0 && !r.err.contains("changed"), qPrintable(r.err));
  }

  // A dataset's classes are its largest label + 1 (27 for EMNIST's letters, 1-26): the models
  // have as many outputs, and an evaluation on another dataset keeps to them.
  void trainsAndEvaluatesOnAnyNumberOfClasses() {
    QTemporaryDir dir;
    const QString letters = dir.filePath("letters"), digits = dir.filePath("digits");
    const QString onLetters = dir.filePath("on-letters"), onDigits = dir.filePath("on-digits");
    QVERIFY(QDir().mkpath(letters) && QDir().mkpath(digits));
    testing::writeMnistFolder(letters, 81, 27, 8, 8, false, 27);
    testing::writeMnistFolder(digits, 40, 20, 8, 8, false, 10);
    const auto train = [](const QString& dataset, const QString& out) {
      return runCli({"train", "--dataset", dataset, "--mode", "single", "--devices", "cpu", "--batch-size", "16",
                     "--epochs", "1", "--out", out});
    };
    Result r = train(letters, onLetters);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("81 training images of 8x8, 27 classes"), qPrintable(r.err));
    QCOMPARE(readJson(onLetters + "/summary.json")["classes"].toInt(), 27);
    r = runCli({"predict", "--run", onLetters, "--out", dir.filePath("p.csv")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(testing::readLines(dir.filePath("p.csv")).value(0).split(',').last(), QString("p26"));
    // Digits' labels 0-9 are among the letters run's 27 classes...
    r = runCli({"eval", "--run", onLetters, "--dataset", digits});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["test_samples"].toInt(), 20);
    // ...but the letters' are not all among a digits run's 10.
    r = train(digits, onDigits);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runCli({"eval", "--run", onDigits, "--dataset", letters});
    QVERIFY2(r.exitCode == 1 && r.err.contains("has test labels up to 24, but this run's models tell 10 classes apart"),
             qPrintable(r.err));
    // The run's own dataset, rewritten with 10 classes after the run trained on 27: scored on its
    // test split as it is now (eval reads no training files), and said to have changed.
    testing::writeMnistFolder(letters, 81, 27, 8, 8, false, 10);
    r = runCli({"eval", "--run", onLetters});
    QVERIFY2(r.exitCode == 0 && r.err.contains("note: the run's dataset changed since it trained: its 27 test images or "
                                               "their labels differ from those it was scored on (summary.json's "
                                               "test_set_crc32 "),
             qPrintable(r.err));
    QVERIFY2(readJson(onLetters + "/summary.json")["test_set_crc32"].toString().size() == 8,
             qPrintable(r.err));
    // resume, which trains on it, still refuses the changed dataset.
    r = runCli({"resume", "--run", onLetters});
    QVERIFY2(r.exitCode == 1 && r.err.contains("now holds 10 classes (0-9), but this run's models were trained on 27"),
             qPrintable(r.err));
  }

  // predict and export refuse to write over the run's own files, however the path is spelled.
  void outputsNeverOverwriteTheRunsOwnFiles() {
    const auto contents = [](const QString& file) {
      QFile f(file);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray metrics = contents(m_realRun + "/metrics.csv"), config = contents(m_realRun + "/config.json");
    QVERIFY(!metrics.isEmpty() && !config.isEmpty());
    // Each says where such a file may go instead, named for what it is (the TensorBoard
    // export had been offered "predictions.csv").
    for (const auto& [arguments, example] : std::vector<std::pair<QStringList, QString>>{
             {{"predict", "--run", m_realRun, "--test-limit", "2", "--out", m_realRun + "/./metrics.csv"}, "predictions.csv"},
             {{"export", "--run", m_realRun, "--to", m_realRun + "/config.json"}, "metrics-export.json"},
             {{"export", "--runs", m_realRun, "--table", m_realRun + "/checkpoints/table.csv"}, "table.csv"},
             {{"export", "--run", m_realRun, "--tensorboard", m_realRun + "/tensorboard/"}, "exported-tensorboard"}}) {
      const Result r = runCli(arguments);
      QVERIFY2(r.exitCode == 1 && r.err.contains("own files") && r.err.contains("(e.g. " + m_realRun + "/" + example + ")"),
               qPrintable(arguments.join(' ') + ": " + r.err));
    }
    QCOMPARE(contents(m_realRun + "/metrics.csv"), metrics);
    QCOMPARE(contents(m_realRun + "/config.json"), config);
    QVERIFY(!QFileInfo::exists(m_realRun + "/checkpoints/table.csv"));
    const Result beside = runCli({"predict", "--run", m_realRun, "--test-limit", "2", "--out", m_realRun + "/p.csv"});
    QVERIFY2(beside.exitCode == 0, qPrintable(beside.err));  // a new file in the run's folder is fine
    QFile::remove(m_realRun + "/p.csv");
    const Result noRun = runCli({"predict", "--out", m_realRun + "/p.csv"});
    QVERIFY2(noRun.exitCode == 2 && noRun.err.contains("predict needs --run DIR"), qPrintable(noRun.err));

    // Nor over another run's: the files of a run folder that is not --run's.
    const QString other = m_dir.filePath("another-run");
    QVERIFY(QDir().mkpath(other));
    for (const QString name : {"config.json", "metrics.csv", "summary.json"}) {
      QVERIFY(QFile::copy(m_realRun + "/" + name, other + "/" + name));
    }
    for (const QStringList& arguments :
         {QStringList{"predict", "--run", m_realRun, "--test-limit", "2", "--out", other + "/metrics.csv"},
          QStringList{"export", "--run", m_realRun, "--to", other + "/summary.json"},
          QStringList{"export", "--runs", m_realRun, "--curves", other + "/config.json"}}) {
      const Result r = runCli(arguments);
      QVERIFY2(r.exitCode == 1 && r.err.contains("is one of run " + other), qPrintable(arguments.join(' ') + ": " + r.err));
    }
    const Result intoAnother = runCli({"export", "--run", m_realRun, "--tensorboard", other});
    QVERIFY2(intoAnother.exitCode == 1 && intoAnother.err.contains("is a run folder"), qPrintable(intoAnother.err));
    for (const QString name : {"config.json", "metrics.csv", "summary.json"}) {
      QCOMPARE(contents(other + "/" + name), contents(m_realRun + "/" + name));
    }
    QVERIFY(!QFileInfo::exists(other + "/ensemble") && !QFileInfo::exists(other + "/model"));

    // Nor over a sweep's sweep.json (each had written over it, exit 0, and the sweep could
    // no longer be resumed), through a link too.
    const QString sweep = m_dir.filePath("a-sweep"), plan = sweep + "/sweep.json";
    QVERIFY(QDir().mkpath(sweep));
    QFile planFile(plan);
    QVERIFY(planFile.open(QIODevice::WriteOnly) && planFile.write("{\"format\": 1}\n") > 0);
    planFile.close();
    QVERIFY(QFile::link(sweep, m_dir.filePath("sweep-link")));
    for (const QStringList& arguments :
         {QStringList{"predict", "--run", m_realRun, "--test-limit", "2", "--out", plan},
          QStringList{"export", "--run", m_realRun, "--to", m_dir.filePath("sweep-link/sweep.json")},
          QStringList{"export", "--runs", m_realRun, "--table", sweep + "/../a-sweep/sweep.json"},
          QStringList{"export", "--runs", m_realRun, "--curves", plan}}) {
      const Result r = runCli(arguments);
      QVERIFY2(r.exitCode == 1 && r.err.contains("is the sweep.json of sweep ") && r.err.contains("a-sweep, its plan"),
               qPrintable(arguments.join(' ') + ": " + r.err));
    }
    QCOMPARE(contents(plan), QByteArray("{\"format\": 1}\n"));
  }

  // A checkpoint's optimizer-state file is a state_dict of the weights' own names and
  // shapes: taken as --init-from's weights, a run started from its momentum buffers. It is
  // refused naming the file and the weights file beside it, which is then taken.
  void initFromRefusesACheckpointsOptimizerState() {
    QTemporaryDir dir;
    const QStringList quick{"train", "--dataset", "synthetic", "--mode", "single", "--devices", "cpu",
                            "--train-limit", "256", "--test-limit", "64", "--epochs", "1"};
    Result r = runCli(quick + QStringList{"--out", dir.filePath("run")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString checkpoint = dir.filePath("run/checkpoints/") + testing::readLines(dir.filePath("run/checkpoints/latest")).value(0);
    const QString optimizer = checkpoint + "/member-0-optimizer.pt", weights = checkpoint + "/member-0.pt";
    QVERIFY(QFileInfo::exists(optimizer) && QFileInfo::exists(weights));
    r = runCli(quick + QStringList{"--init-from", optimizer, "--out", dir.filePath("from-optimizer")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("--init-from file " + optimizer + " holds a checkpoint's optimizer state") &&
                 r.err.contains("give the weights beside it, " + weights),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(dir.filePath("from-optimizer")));
    r = runCli(quick + QStringList{"--init-from", weights, "--out", dir.filePath("from-weights")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  }

  // A file is written under a temporary name beside it (metrics exports, summary.json) and
  // a checkpoint in a hidden staging folder, each renamed into place: a failure names the
  // file the user asked for or the checkpoint's own folder, never our temporaries.
  void writeFailuresNameTheRealFileNotOurTemporaries() {
    QTemporaryDir dir;
    const QString run = dir.filePath("run");
    const QStringList quick{"train", "--dataset", "synthetic", "--mode", "single", "--devices", "cpu",
                            "--train-limit", "256", "--test-limit", "64", "--epochs", "1"};
    Result r = runCli(quick + QStringList{"--out", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QString missing = dir.filePath("no-such-folder/metrics.csv");
    r = runCli({"export", "--run", run, "--to", missing});
    QVERIFY2(r.exitCode == 1 &&
                 r.err.contains("cannot create " + missing + ": the folder " + dir.filePath("no-such-folder") +
                                " does not exist; create it first") &&
                 !r.err.contains(".tmp"),
             qPrintable(r.err));

    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("ENSEMBLELAB_WRITE_FAULT", "member-0.pt:1:ENOSPC");  // the first checkpoint's weights
    process.setProcessEnvironment(environment);
    process.start(ENSEMBLELAB_CLI_PATH, quick + QStringList{"--out", dir.filePath("full")});
    QVERIFY(process.waitForFinished(300000));
    const QString errors = QString::fromUtf8(process.readAllStandardError());
    QCOMPARE(process.exitCode(), 1);
    QVERIFY2(errors.contains("cannot write " + dir.filePath("full/checkpoints/step-000000002/member-0.pt") +
                             ": No space left on device") &&
                 !errors.contains(".incomplete-"),
             qPrintable(errors));
  }

  // A metrics.csv whose last row was cut short (a copy or a disk that lost its tail) is
  // warned of by export, naming the file and the line; export drops that row rather than pass
  // it on. Resume restores every row its checkpoint had seen from the checkpoint's copy of
  // the file, however it was lost (cut short, removed, edited), and says so. A checkpoint
  // written before checkpoints kept that copy keeps the file's whole rows and says the rest
  // are lost (it used to pad the file with zero bytes up to its checkpoint's length, and
  // write on after them).
  void resumeRestoresTheMetricsRowsItsCheckpointSaw_data() {
    QTest::addColumn<QString>("damage");
    QTest::addColumn<bool>("copyKept");  // false: the checkpoint of an EnsembleLab before it kept one
    QTest::newRow("cut short") << "cut" << true;
    QTest::newRow("removed") << "removed" << true;
    QTest::newRow("a row edited") << "edited" << true;
    QTest::newRow("cut short, no copy in the checkpoint") << "cut" << false;
  }
  void resumeRestoresTheMetricsRowsItsCheckpointSaw() {
    QFETCH(QString, damage);
    QFETCH(bool, copyKept);
    QTemporaryDir dir;
    const QString run = dir.filePath("run"), metrics = run + "/metrics.csv";
    QProcess killed;  // killed once the second epoch's checkpoint is whole, `latest` still at the first
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("ENSEMBLELAB_CRASH_AT", "checkpoint-published:2");
    killed.setProcessEnvironment(environment);
    killed.start(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--mode", "single", "--devices", "cpu",
                                        "--train-limit", "256", "--test-limit", "64", "--epochs", "3", "--log-every",
                                        "1", "--out", run});
    QVERIFY(killed.waitForFinished(300000));
    QCOMPARE(killed.exitStatus(), QProcess::CrashExit);
    const QString checkpoint = run + "/checkpoints/" + testing::readLines(run + "/checkpoints/latest").value(0);
    const qint64 seen = readJson(checkpoint + "/manifest.json")["state"].toObject()["metrics_bytes"].toInteger();
    const QByteArray rowsSeen = testing::fileBytes(metrics).left(seen);
    QCOMPARE(rowsSeen.size(), seen);
    if (!copyKept) {  // as an older checkpoint: no metrics.csv in it, nor in its manifest
      QJsonObject manifest = readJson(checkpoint + "/manifest.json");
      QJsonObject files = manifest["files"].toObject();
      QVERIFY(files.contains("metrics.csv"));
      files.remove("metrics.csv");
      manifest["files"] = files;
      QVERIFY(testing::writeFile(checkpoint + "/manifest.json", QJsonDocument(manifest).toJson()));
      QVERIFY(QFile::remove(checkpoint + "/metrics.csv"));
    }
    if (damage == "cut") QVERIFY(QFile::resize(metrics, seen - 7));  // its last row cut mid-way
    if (damage == "removed") QVERIFY(QFile::remove(metrics));
    if (damage == "edited") {
      QByteArray edited = testing::fileBytes(metrics);
      const int secondRow = int(edited.indexOf('\n')) + 1;
      edited[secondRow] = edited[secondRow] == '9' ? '8' : '9';  // the first row's step
      QVERIFY(testing::writeFile(metrics, edited));
    }
    const QStringList before = testing::readLines(metrics);

    Result r;
    if (damage == "cut") {
      const QString torn = before.last();
      r = runCli({"export", "--run", run, "--to", dir.filePath("m.csv")});
      QVERIFY2(r.exitCode == 0 && r.err.contains(QString("warning: %1 ends in a row cut short, line %2 ('%3'); the export "
                                                         "leaves it out").arg(metrics).arg(before.size()).arg(torn)),
               qPrintable(r.err));
      QCOMPARE(testing::readLines(dir.filePath("m.csv")), before.mid(0, before.size() - 1));
    }

    r = runCli({"resume", "--run", run});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QByteArray after = testing::fileBytes(metrics);
    QVERIFY2(!after.contains('\0') && after.endsWith('\n'), after.constData());
    const QStringList lines = testing::readLines(metrics);
    for (const QString& line : lines) QCOMPARE(line.count(','), 6);
    QVERIFY2(lines.last().startsWith("6,3,"), qPrintable(lines.last()));  // and on to the end
    if (copyKept) {
      QVERIFY2(r.err.contains(QString("warning: %1 had lost or changed rows that were written before the checkpoint of "
                                      "step 2 (the file was cut short, removed or edited); they are restored from that "
                                      "checkpoint's copy").arg(metrics)),
               qPrintable(r.err));
      QCOMPARE(after.left(seen), rowsSeen);  // every row the checkpoint had seen, as written
    } else {
      QVERIFY2(r.err.contains(QString("warning: %1 is shorter than the checkpoint of step 2 saw it (%2 of %3 bytes), and that "
                                      "checkpoint, written before checkpoints kept a copy of the file, cannot restore it: "
                                      "its whole rows are kept, the run goes on after them, and the rows it lost stay lost")
                                  .arg(metrics).arg(seen - 7).arg(seen)),
               qPrintable(r.err));
      QCOMPARE(lines.mid(0, before.size() - 1), before.mid(0, before.size() - 1));  // every whole row kept
    }
    r = runCli({"export", "--run", run, "--to", dir.filePath("m2.csv")});
    QVERIFY2(r.exitCode == 0 && !r.err.contains("warning"), qPrintable(r.err));
  }

  void refusesToOverwriteARun() {
    const Result r = runCli({"train", "--dataset", "synthetic", "--out", m_realRun});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("already holds a run"), qPrintable(r.err));
  }

  // --out naming a folder of someone's own files (a home folder, a typo): refused before a run
  // writes its metrics.csv and checkpoints/ among them. An empty folder is fine.
  void refusesAFolderOfOtherFilesOrAFile() {
    QTemporaryDir dir;
    QVERIFY(testing::writeFile(dir.filePath("notes.txt"), "mine"));
    const QStringList quick{"train", "--dataset", "synthetic", "--mode", "single", "--train-limit", "256", "--epochs", "1"};
    Result r = runCli(quick + QStringList{"--out", dir.path()});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("already holds files that are not a run's (notes.txt)") &&
                 r.err.contains("choose a new or empty folder"),
             qPrintable(r.err));
    QCOMPARE(QDir(dir.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList{"notes.txt"});
    r = runCli(quick + QStringList{"--out", dir.filePath("notes.txt")});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("notes.txt is a file, not a folder"), qPrintable(r.err));
    QVERIFY(QDir().mkpath(dir.filePath("empty")));
    r = runCli(quick + QStringList{"--out", dir.filePath("empty")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QFileInfo::exists(dir.filePath("empty/config.json")));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "TestCli.moc"
