// SPDX-License-Identifier: GPL-3.0-or-later
// `train --init-from`: runs start from state_dicts that PyTorch itself saved (Debian's 1.13
// and the wheel's 2.x, where installed). The reader gives back every tensor as PyTorch
// wrote it (views, offsets, dtypes, protocol 4); a run started from the files is the run
// PyTorch continues (SGD's first step from those weights reaches our step 1); and what
// does not fit is refused before anything is written, by name.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/io/AtomicFile.h"
#include "core/io/Checkpoint.h"
#include "core/io/PyTorchStateDict.h"
#include "core/models/Classifier.h"
#include "core/config/ConfigFields.h"
#include "core/models/ModelRegistry.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/RunSetup.h"
#include "core/train/Trainer.h"
#include "tests/CheckpointWeights.h"
#include "tests/RunStatusCheck.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

struct Output {
  int exitCode = -1;
  QString text;
};

Output runProcess(const QString& program, const QStringList& arguments) {
  QProcess process;
  process.start(program, arguments);
  if (!process.waitForFinished(300000)) return {-1, program + " did not finish in 300 s"};
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError()).trimmed()};
}

/// The CheckpointError or ConfigError message of `action`, or "" when it throws none.
template <typename Action>
QString refusal(Action action) {
  try {
    action();
  } catch (const CheckpointError& e) {
    return QString::fromStdString(e.what());
  } catch (const ConfigError& e) {
    return QString::fromStdString(phraseMessage(e.what(), FieldNaming::Flags));
  }
  return {};
}

/// The tensors init_from_fixtures.py's views() saves, built here.
std::vector<std::pair<std::string, torch::Tensor>> expectedViews() {
  const torch::Tensor base = torch::arange(12, torch::kFloat32).reshape({3, 4});
  return {{"base", base},
          {"transposed", base.t()},
          {"corner", base.slice(0, 1).slice(1, 2)},
          {"double", torch::tensor({1.5, -2.25}, torch::kFloat64)},
          {"count", torch::tensor(int64_t(7))},
          {"empty", torch::zeros({0, 3})}};
}

ExperimentConfig fashionConfig(const QString& initFrom) {
  ExperimentConfig config;
  config.dataset = "fashion-mnist";
  config.mode = TrainingMode::Ensemble;
  config.devices = "cpu*2";
  config.epochs = 1;
  config.batchSize = 64;
  config.trainLimit = 64;  // one batch: one step, checkpointed at step 1
  config.testLimit = 500;
  config.initFrom = initFrom.toStdString();
  return config;
}

/// Two members on synthetic data (tests/TestSupport.h), two steps: a run another starts from.
ExperimentConfig smallEnsemble(const std::string& initFrom = "") {
  ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
  config.trainLimit = 128;
  config.initFrom = initFrom;
  return config;
}

}  // namespace

class TestInitFrom final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QStringList m_pythons;  ///< the interpreters with torch; fixtures under m_dir/<index>

  QString fixture(int python, const QString& name) const {
    return m_dir.filePath(QString::number(python) + "/" + name);
  }

 private slots:
  void initTestCase() {
    const QStringList candidates{ENSEMBLELAB_TEST_PYTHON, "/usr/bin/python3"};
    for (const QString& python : candidates) {
      if (m_pythons.contains(python) || runProcess(python, {"-c", "import torch"}).exitCode != 0) continue;
      const Output made = runProcess(python, {ENSEMBLELAB_SOURCE_DIR "/tests/init_from_fixtures.py",
                                              m_dir.filePath(QString::number(m_pythons.size()))});
      QVERIFY2(made.exitCode == 0, qPrintable(made.text));
      m_pythons << python;
    }
    if (m_pythons.isEmpty()) qInfo("no Python with torch: the tests of files PyTorch wrote skip");
  }

  void readsEveryTensorAsPyTorchWroteIt_data() {
    QTest::addColumn<int>("python");
    QTest::addColumn<QString>("file");
    for (int p = 0; p < m_pythons.size(); ++p) {
      for (const QString file : {"views.pt", "views-p4.pt"}) {
        QTest::newRow(qPrintable(m_pythons[p] + " " + file)) << p << file;
      }
    }
  }

  void readsEveryTensorAsPyTorchWroteIt() {
    QFETCH(int, python);
    QFETCH(QString, file);
    const TensorDict read = readPyTorchStateDict(fixture(python, file).toStdString());
    const auto expected = expectedViews();
    QCOMPARE(read.size(), expected.size());
    std::size_t at = 0;
    for (const auto& item : read) {  // in the file's order
      const auto& [name, tensor] = expected[at++];
      QCOMPARE(item.key(), name);
      QCOMPARE(item.value().scalar_type(), tensor.scalar_type());
      QVERIFY2(item.value().sizes().equals(tensor.sizes()), name.c_str());
      QVERIFY2(torch::equal(item.value(), tensor), name.c_str());
    }
  }

  void pytorchContinuesARunStartedFromItsFiles_data() {
    QTest::addColumn<int>("python");
    QTest::addColumn<QStringList>("files");
    for (int p = 0; p < m_pythons.size(); ++p) {
      QTest::newRow(qPrintable(m_pythons[p] + ": one file per member")) << p << QStringList{"cnn-0.pt", "cnn-1.pt"};
      QTest::newRow(qPrintable(m_pythons[p] + ": one file for all")) << p << QStringList{"cnn-1.pt"};
    }
  }

  // The strong check: PyTorch loads the same files, takes SGD's first step on the same
  // batch, and lands on our step-1 weights and momentum. Seeded weights would not.
  void pytorchContinuesARunStartedFromItsFiles() {
    QFETCH(int, python);
    QFETCH(QStringList, files);
    if (!QFileInfo::exists("/usr/share/datasets/fashion-mnist")) QSKIP("Fashion-MNIST is not installed");
    QStringList paths;
    for (const QString& file : files) paths << fixture(python, file);
    const QString run = m_dir.filePath(QString("run-%1-%2").arg(python).arg(files.size()));
    REQUIRE_COMPLETED(Trainer::create(fashionConfig(paths.join(',')), run.toStdString())->run(nullptr, nullptr));
    const Output check = runProcess(m_pythons[python], {ENSEMBLELAB_SOURCE_DIR "/tests/python_package_check.py", run,
                                                        "--from", paths.join(',')});
    QVERIFY2(check.exitCode == 0, qPrintable(check.text));
    qInfo().noquote() << check.text;
    // config.json says where the run started from.
    QVERIFY(testing::readLines(run + "/config.json").join('\n').contains(paths.first()));
  }

  void refusesWhatIsNotAStateDictSayingWhat_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a list") << "list.pt" << "holds no dict of tensors";
    QTest::newRow("a whole module") << "module.pt" << "holds a pickled ensemble_lab.models.Cnn";
    QTest::newRow("a training checkpoint") << "nested.pt" << "entry 'state_dict' is not a tensor";
    QTest::newRow("the legacy format") << "legacy.pt" << "legacy (pre-1.6) format";
    QTest::newRow("truncated") << "truncated.pt" << "is damaged or is not a tensor file";
    QTest::newRow("not PyTorch's") << "text.pt" << "is damaged or is not a tensor file";
    QTest::newRow("missing") << "missing.pt" << "cannot open";
  }

  void refusesWhatIsNotAStateDictSayingWhat() {
    QFETCH(QString, file);
    QFETCH(QString, expected);
    if (m_pythons.isEmpty()) QSKIP("no fixtures");
    QFile whole(fixture(0, "cnn-0.pt"));
    QVERIFY(whole.open(QIODevice::ReadOnly));
    QVERIFY(testing::writeFile(fixture(0, "truncated.pt"), whole.readAll().left(int(whole.size() / 2))));
    QVERIFY(testing::writeFile(fixture(0, "text.pt"), "conv1.weight = [0.1, 0.2]\n"));
    const QString path = fixture(0, file);
    const QString message = refusal([&] { readPyTorchStateDict(path.toStdString()); });
    QVERIFY2(message.startsWith(path) && message.contains(expected), qPrintable(message));
    if (file != "missing.pt" && file != "truncated.pt" && file != "text.pt") {
      QVERIFY2(message.contains("torch.save"), qPrintable(message));  // and says what to give instead
    }
  }

  // What cannot be a tensor file is refused before it is read whole: a device with no end
  // (/dev/zero had been read until killed, gigabytes), a pipe with no writer (it had hung), a
  // folder, and a large file of something else (a 2 GB one had been read whole, twice its
  // size in memory, before its first bytes were looked at).
  void refusesWhatCannotBeATensorFileBeforeReadingIt() {
    QCOMPARE(refusal([] { readPyTorchStateDict("/dev/zero"); }),
             QString("/dev/zero is a device, not a tensor file; name a file torch.save wrote"));
    const QString fifo = m_dir.filePath("weights-fifo.pt");
    QCOMPARE(QProcess::execute("mkfifo", {fifo}), 0);
    QVERIFY(refusal([&] { readPyTorchStateDict(fifo.toStdString()); }).contains("is a pipe (FIFO), not a tensor file"));
    QVERIFY(refusal([&] { readPyTorchStateDict(m_dir.path().toStdString()); }).contains("is a folder, not a tensor file"));
    // Sparse: no disk, and no memory unless it is read.
    const QString large = m_dir.filePath("large-download.bin");
    QFile file(large);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write("<!DOCTYPE html>") > 0 && file.resize(qint64(6) << 30));
    file.close();
    QElapsedTimer clock;
    clock.start();
    const QString message = refusal([&] { readPyTorchStateDict(large.toStdString()); });
    QVERIFY2(message == large + " is damaged or is not a tensor file (no ZIP header)", qPrintable(message));
    QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));  // 6 GB read takes far longer
    QFile::remove(large);
    // --config and the run files read the same way: a device is named, not read.
    try {
      readWholeFile("/dev/zero");
      QFAIL("/dev/zero was read as a file");
    } catch (const IoError& e) {
      QCOMPARE(QString(e.what()), QString("/dev/zero is a device, not a file; name a file"));
    }
  }

  void refusesAModelThatDoesNotFitNamingTheFirstMismatch() {
    if (m_pythons.isEmpty()) QSKIP("no fixtures");
    if (!QFileInfo::exists("/usr/share/datasets/fashion-mnist")) QSKIP("Fashion-MNIST is not installed");
    const QString run = m_dir.filePath("refused");
    // Another model's keys: the message names an entry the CNN has and the file lacks,
    // the first such in the model's order.
    const QString lenet = fixture(0, "lenet.pt");
    QString message = refusal([&] { Trainer::create(fashionConfig(lenet), run.toStdString()); });
    const QRegularExpressionMatch named = QRegularExpression("has no '([^']+)', which the cnn model has").match(message);
    QVERIFY2(named.hasMatch() && message.startsWith(lenet), qPrintable(message));
    const TensorDict file = readPyTorchStateDict(lenet.toStdString());
    auto cnn = makeModel("cnn", ModelInput{1, 28, 28, 10});
    std::vector<std::string> keys;
    for (const auto& p : cnn->named_parameters()) keys.push_back(p.key());
    for (const auto& b : cnn->named_buffers()) keys.push_back(b.key());
    const auto firstMissing = std::find_if(keys.begin(), keys.end(), [&](const std::string& k) { return !file.contains(k); });
    QVERIFY(firstMissing != keys.end());
    QCOMPARE(named.captured(1).toStdString(), *firstMissing);

    // One entry of another shape: named, with both shapes.
    const QString wide = fixture(0, "cnn-wide.pt");
    const TensorDict wideFile = readPyTorchStateDict(wide.toStdString());
    std::string last;
    for (const auto& item : wideFile) last = item.key();  // c10::Dict's iterators go forward only
    message = refusal([&] { Trainer::create(fashionConfig(wide), run.toStdString()); });
    QVERIFY2(message.contains(QString::fromStdString("'" + last + "' has shape [11]")), qPrintable(message));

    // Three files for two members.
    const QString three = QStringList{fixture(0, "cnn-0.pt"), fixture(0, "cnn-1.pt"), fixture(0, "cnn-0.pt")}.join(',');
    message = refusal([&] { Trainer::create(fashionConfig(three), run.toStdString()); });
    QVERIFY2(message.contains("--init-from names 3 files for 2 models"), qPrintable(message));

    // Refused before anything is written.
    QVERIFY(!QFileInfo::exists(run));
  }

  // A run folder given to --init-from (or its checkpoints/, or one checkpoint folder)
  // starts each model from that run's latest checkpoint's model of the same index: the run
  // is, weight for weight, the one started from those files by name. A path through
  // checkpoints/latest, a file naming the newest checkpoint, reads as that folder (it said
  // "Not a directory"). A folder of another number of models, or without weights, is
  // refused by name before anything is written. Needs no Python.
  void startsFromAnEarlierRunsFolder() {
    const QString earlier = m_dir.filePath("earlier");
    REQUIRE_COMPLETED(Trainer::create(smallEnsemble(), earlier.toStdString())->run(nullptr, nullptr));
    const std::string checkpoint = latestCheckpoint((earlier + "/checkpoints").toStdString());
    const std::vector<std::string> byName{checkpoint + "/member-0.pt", checkpoint + "/member-1.pt"};
    QCOMPARE(initialWeightFiles(smallEnsemble(earlier.toStdString()), 2), byName);
    QCOMPARE(initialWeightFiles(smallEnsemble(earlier.toStdString() + "/checkpoints"), 2), byName);
    QCOMPARE(initialWeightFiles(smallEnsemble(checkpoint), 2), byName);
    const std::string throughLatest = earlier.toStdString() + "/checkpoints/latest/member-1.pt";
    QCOMPARE(initialWeightFiles(smallEnsemble(throughLatest), 2), std::vector<std::string>{byName[1]});
    // checkpoints/latest itself, and with a slash: the checkpoint it names (both had been
    // read as a tensor file and refused as damaged).
    QCOMPARE(initialWeightFiles(smallEnsemble(earlier.toStdString() + "/checkpoints/latest"), 2), byName);
    QCOMPARE(initialWeightFiles(smallEnsemble(earlier.toStdString() + "/checkpoints/latest/"), 2), byName);

    const auto trained = [&](const QString& name, const std::string& initFrom) {
      const QString run = m_dir.filePath(name);
      const RunFinishedEvent finished = Trainer::create(smallEnsemble(initFrom), run.toStdString())->run(nullptr, nullptr);
      return finished.status == RunStatus::Completed ? testing::latestWeights(run.toStdString()) : std::vector<TensorDict>{};
    };
    const std::vector<TensorDict> fromFiles = trained("from-files", byName[0] + "," + byName[1]);
    QCOMPARE(fromFiles.size(), std::size_t(2));
    QVERIFY(testing::identical(trained("from-folder", earlier.toStdString()), fromFiles));
    QVERIFY(testing::identical(trained("through-latest", earlier.toStdString() + "/checkpoints/latest/member-0.pt," + throughLatest),
                        fromFiles));
    QVERIFY(!testing::identical(trained("seeded", ""), fromFiles));  // the files made a difference
    const std::vector<TensorDict> swapped = trained("swapped", byName[1] + "," + byName[0]);
    QVERIFY(!testing::identical(swapped, fromFiles));  // and each model took its own

    const QString refused = m_dir.filePath("refused");
    ExperimentConfig three = smallEnsemble(earlier.toStdString());
    three.devices = "cpu*3";
    QString message = refusal([&] { Trainer::create(three, refused.toStdString()); });
    QVERIFY2(message.contains("holds the weights of 2 models") && message.contains("this run has 3") &&
                 message.contains(QString::fromStdString(byName[0])),
             qPrintable(message));
    message = refusal([&] { Trainer::create(smallEnsemble(earlier.toStdString() + "/tensorboard"), refused.toStdString()); });
    QVERIFY2(message.contains("holds no model weights"), qPrintable(message));
    QVERIFY(!QFileInfo::exists(refused));
  }

  // Weights holding a NaN or an infinity cannot train: refused by name before anything is
  // written (they had trained to a NaN loss at step 1, blamed on the learning rate, and left
  // a failed run). Needs no Python: the earlier run's checkpoint, one value spoilt.
  void refusesWeightsThatAreNotFinite() {
    const QString earlier = m_dir.filePath("before-spoilt");
    REQUIRE_COMPLETED(Trainer::create(smallEnsemble(), earlier.toStdString())->run(nullptr, nullptr));
    CheckpointData saved = readCheckpoint(latestCheckpoint((earlier + "/checkpoints").toStdString()));
    std::string spoilt;
    for (const auto& item : saved.weights[1]) {
      if (item.value().is_floating_point() && item.value().numel() > 3) spoilt = item.key();
    }
    QVERIFY(!spoilt.empty());
    for (const double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
      CheckpointData copy = saved;
      copy.weights[1] = copy.weights[1].copy();
      torch::Tensor tensor = copy.weights[1].at(spoilt).clone();
      tensor.view({-1})[2] = bad;
      copy.weights[1].insert_or_assign(spoilt, tensor);
      const QString folder = m_dir.filePath(std::isnan(bad) ? "spoilt-nan" : "spoilt-inf");
      const std::string checkpoint = writeCheckpoint(folder.toStdString(), 1, copy);
      const QString run = folder + "-run";
      const QString message = refusal([&] { Trainer::create(smallEnsemble(checkpoint), run.toStdString()); });
      QVERIFY2(message.contains(QString::fromStdString(checkpoint + "/member-1.pt holds 1 of ")) &&
                   message.contains(QString::fromStdString("'" + spoilt + "' that are NaN or infinite")) &&
                   message.contains("without --init-from"),
               qPrintable(message));
      QVERIFY(!QFileInfo::exists(run));
    }
    // Member 0's file, untouched, is taken.
    const QString fromGood = m_dir.filePath("from-unspoilt-member");
    const std::string good = latestCheckpoint(m_dir.filePath("spoilt-nan").toStdString()) + "/member-0.pt";
    REQUIRE_COMPLETED(Trainer::create(smallEnsemble(good), fromGood.toStdString())->run(nullptr, nullptr));
  }

  void theCliRefusesWithTheMessage() {
    if (m_pythons.isEmpty()) QSKIP("no fixtures");
    const QString out = m_dir.filePath("cli-refused");
    const Output result = runProcess(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--mode", "single",
                                                            "--epochs", "1", "--init-from", fixture(0, "nested.pt"),
                                                            "--out", out});
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(result.text.contains("entry 'state_dict' is not a tensor"), qPrintable(result.text));
    QVERIFY(!QFileInfo::exists(out));
    const Output empty = runProcess(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--init-from",
                                                           fixture(0, "cnn-0.pt") + ",", "--out", out});
    QCOMPARE(empty.exitCode, 1);
    QVERIFY2(empty.text.contains("--init-from") && empty.text.contains("empty file name"), qPrintable(empty.text));
  }
};

QTEST_GUILESS_MAIN(TestInitFrom)
#include "TestInitFrom.moc"
