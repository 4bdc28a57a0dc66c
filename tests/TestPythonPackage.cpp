// SPDX-License-Identifier: GPL-3.0-or-later
// python/ensemble_lab against real runs on Fashion-MNIST: each model's checkpoint loads
// strictly into its torch.nn twin, PyTorch's SGD continues the run to our next step's
// weights (1e-6; with weight decay too; a ReLU input within rounding of zero may fall on either side,
// which python_package_check.py tries both ways), and the Ensemble module scores as the run did; with
// the wheel's PyTorch and with Debian's 1.13 where it is installed. And the package installs with pip.
#include <QDir>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/common/Error.h"
#include "core/config/ExperimentConfig.h"
#include "core/data/Dataset.h"
#include "core/data/DatasetSource.h"
#include "core/train/Trainer.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

constexpr int kNotStarted = -2;  // runPython's exit status for a Python that is not there

struct PythonResult {
  int exitCode = -1;
  QString output;
};

PythonResult runPython(const QString& python, const QStringList& arguments, const QString& pythonPath = {}) {
  QProcess process;
  if (!pythonPath.isEmpty()) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("PYTHONPATH", pythonPath);
    process.setProcessEnvironment(environment);
  }
  process.setWorkingDirectory(QDir::tempPath());  // not the source tree: imports come from where they are installed
  process.start(python, arguments);
  if (!process.waitForStarted()) return {kNotStarted, python + " does not start: " + process.errorString()};
  if (!process.waitForFinished(600000)) return {-1, "did not finish in 600 s"};
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError()).trimmed()};
}

// python_package_check.py's exit status when the Python it runs in has no torch.
constexpr int kNoTorch = 3;

// The runs PyTorch continues (initTestCase says why each).
struct RunSettings {
  const char* name;
  const char* model;
  TrainingMode mode;
  const char* devices;
  int64_t batch;
  double weightDecay;
  LrSchedule schedule;
  int64_t warmupSteps;
};
const RunSettings kRuns[] = {
    {"cnn", "cnn", TrainingMode::Ensemble, "cpu*2", 64, 0.0, LrSchedule::Constant, 0},
    {"cnn-weight-decay", "cnn", TrainingMode::Ensemble, "cpu*2", 64, 0.01, LrSchedule::Constant, 0},
    {"cnn-cosine", "cnn", TrainingMode::Ensemble, "cpu*2", 64, 0.0, LrSchedule::Cosine, 0},
    {"cnn-warmup", "cnn", TrainingMode::Ensemble, "cpu*2", 64, 0.0, LrSchedule::Constant, 3},
    // Two steps: the second, which PyTorch takes, at a tenth of lr (milestones 1, 2).
    {"cnn-step", "cnn", TrainingMode::Ensemble, "cpu*2", 64, 0.0, LrSchedule::Step, 0},
    {"lenet", "lenet", TrainingMode::Single, "cpu", 64, 0.0, LrSchedule::Constant, 0},
    {"resnet18", "resnet18", TrainingMode::Single, "cpu", 16, 0.0, LrSchedule::Constant, 0}};

// ResNet-18's convolutions feed BatchNorm, which cancels their biases: those biases'
// gradient is zero in exact arithmetic, so what they get is rounding, summed in another
// order by each library (1.6e-6 in the weights and 1.6e-5 in their momentum after one step
// here; every other weight within 4e-7).
QString toleranceOf(const QString& run) { return run == "resnet18" ? "1e-5" : "1e-6"; }

// The dataset folders ensemble_lab.load_split must read as the engine does, or refuse as it
// does: a data row's name, its layout (writeSplitFolder), and the refusal, empty where both read it.
struct SplitLayout {
  const char* name;
  const char* layout;
  const char* refusal;
};
const SplitLayout kSplitLayouts[] = {
    {"MNIST's names", "plain", ""},
    {"dotted, gzip, as MNIST mirrors ship it", "dotted", ""},
    {"EMNIST's prefix", "prefixed", ""},
    {"MNIST's names beside a smaller prefixed copy", "beside a copy", ""},
    {"two prefixed sets", "two sets", "holds 2 datasets"},
    {"test labels missing", "missing", "has no t10k-labels-idx1-ubyte"},
    {"test images cut short", "truncated", "truncated"},
    {"not an IDX file", "not idx", "has a wrong IDX magic number 0x504B0304"},
    // The engine tells gzip by the content, not the name, and reads a .gz as zlib's gzread does
    // (load_split had gone by the name, and refused what Python's gzip refuses).
    {"a raw file named .gz", "raw named gz", ""},
    // gunzip -k leaves both: the raw file is read; beside a .gz of other data, neither is.
    {"the raw file beside its .gz", "raw beside its gzip", ""},
    {"the raw file beside a .gz of other data", "raw beside other gzip", "holds t10k-images-idx3-ubyte (11 x 6 x 5) and t10k-images-idx3-ubyte.gz (12 x 6 x 5): "
         "two different files for one; remove or move the one not to train on"},
    {"a gzip file named raw", "gzip named raw", ""},
    {"garbage after the gzip member", "gzip then garbage", ""},
    {"two gzip members, then garbage", "gzip members then garbage", ""},
    {"a gzip magic number after the member", "gzip then gzip magic", "cannot be decompressed (unknown compression method)"},
    {"gzip cut short", "gzip cut short", "cannot be decompressed (the compressed data ends early)"},
    {"gzip of more than its header declares", "gzip too long", "decompresses to more than 347 bytes, more than its IDX header declares"},
    // A split's two files (load_split had raised torch's "both buffer length (0) and count (-1)
    // must not be 0", or one message for all of these).
    {"no test samples", "no test samples", "t10k-images-idx3-ubyte holds no images"},
    {"empty images", "empty images", "t10k-images-idx3-ubyte declares empty images (0x5)"},
    {"2-D labels", "2-D labels", "t10k-labels-idx1-ubyte has 2 dimensions; a label file has 1"},
    // Shapes other tools write, each refused with what to do (they had been "has 4 dimensions").
    {"flattened images", "flattened", "t10k-images-idx3-ubyte has 2 dimensions (11x30), images flattened into rows of "
         "pixels; an image file has 3 (count, rows, columns): write it with each image's rows and columns (11xROWSxCOLUMNS)"},
    {"colour images, channels last", "colour HWC", "t10k-images-idx3-ubyte has 4 dimensions (11x6x5x3), (count, rows, "
         "columns, channels): 3 channels, colour images; an image file has 3 (count, rows, columns) (or 4 with one "
         "channel), one byte a pixel: convert the images to greyscale and write them as 11x6x5"},
    // One channel, first or last, is read as the same bytes' 3 dimensions are.
    {"one channel first", "one channel CHW", ""},
    {"one channel last", "one channel HWC", ""},
    {"images and labels swapped", "swapped", "train-images-idx3-ubyte has 1 dimension, as a label file has; an image file has 3 (count, rows, "
         "columns): is it a label file?"},
    {"images under a label file's magic number", "one-dimensional images", "t10k-images-idx3-ubyte has 319 bytes after the data its header declares (1 "
         "dimension, 11, so 11 bytes of data); the file is corrupt, or its magic number "
         "declares too few dimensions (an image file has 3: count, rows, columns; a "
         "label file 1)"},
    {"labels of another split", "label count", "t10k-images-idx3-ubyte holds 11 images but"},
    {"float images", "float", "holds IDX elements of type float;"},
    {"signed-byte labels", "signed bytes", "holds IDX elements of type signed byte;"},
    // Checks across the splits (load_split had read one split alone, and accepted these).
    {"a stray label", "stray label", "has the label 200 (at index 5), so classes 0-200, but only 8"},
    {"one class", "one class", "has one class: every label in"},
    {"train and test images of two sizes", "two sizes", "mixes image sizes: train images are 6x5, test images 5x6"},
    {"the files in a subfolder", "subfolder", "holds no MNIST-format files, but its subfolder"},
    {"the files two folders down (torchvision's root)", "two down", "holds no MNIST-format files, but its subfolder"},
};
const QString kReadingMark = "load_split: ";  // the start of each line of load_split's readings

}  // namespace

class TestPythonPackage final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QHash<QString, PythonResult> m_checks;  // python and tolerance -> its one check of their runs

  // One Python process checks every run of a tolerance: each start of Python imports torch,
  // 2.5-4 s on CI's machines, and 28 of them took half this test's time there. Each data
  // row then reads its own run's verdict from the output.
  const PythonResult& checkOfRunsLike(const QString& python, const QString& run) {
    const QString tolerance = toleranceOf(run), key = python + " " + tolerance;
    if (!m_checks.contains(key)) {
      QStringList arguments{ENSEMBLELAB_SOURCE_DIR "/tests/python_package_check.py", "--tolerance", tolerance};
      for (const RunSettings& other : kRuns) {
        if (toleranceOf(other.name) == tolerance) arguments << m_dir.filePath(other.name);
      }
      m_checks.insert(key, runPython(python, arguments));
    }
    return m_checks[key];
  }

  QHash<QString, QString> m_splitFolders;            // layout -> its folder
  QHash<QString, PythonResult> m_loadSplitReadings;  // python -> its reading of every folder

  // The folder of every layout of kSplitLayouts, written on the first call.
  const QHash<QString, QString>& splitFolders() {
    if (m_splitFolders.isEmpty()) {
      int index = 0;
      for (const SplitLayout& row : kSplitLayouts) {
        const QString root = m_dir.filePath(QString("splits/%1").arg(index++));
        QDir().mkpath(root);  // a folder not made fails the row's writes in writeSplitFolder
        writeSplitFolder(root, row.layout);
        m_splitFolders.insert(row.layout, root);
      }
    }
    return m_splitFolders;
  }

  // One Python process reads every folder, as checkOfRunsLike checks every run: 62 starts of
  // Python (31 folders, two Pythons) took 140 of this test's 257 s.
  const PythonResult& loadSplitReadings(const QString& python) {
    if (!m_loadSplitReadings.contains(python)) {
      const QString code =
          "import sys, json, ensemble_lab\n"
          "for folder in sys.argv[1:]:\n"
          "    try:\n"
          "        train, _ = ensemble_lab.load_split(folder, 'train')\n"
          "        images, labels = ensemble_lab.load_split(folder, 'test')\n"
          "        read = '%d %d %d %d %d %d' % (train.shape[0], images.shape[0], images.shape[2], images.shape[3],\n"
          "                                      int(images.mul(255).round().sum()), int(labels.sum()))\n"
          "    except (OSError, ValueError) as error:\n"
          "        read = 'refused: %s' % error\n"
          "    print('" + kReadingMark + "' + json.dumps([folder, read]), flush=True)\n";
      m_loadSplitReadings.insert(python, runPython(python, QStringList{"-c", code} + splitFolders().values(),
                                                   ENSEMBLELAB_SOURCE_DIR "/python"));
    }
    return m_loadSplitReadings[python];
  }

  // Writes the dataset folder of one layout of kSplitLayouts under `root`.
  static void writeSplitFolder(const QString& root, const QString& layout) {
    const QDir dir(root);
    const auto writeSet = [&](const QString& prefix, const QString& separator, bool gz, int train, int test) {
      QVERIFY(testing::writeNamedMnistSet(dir.path(), prefix, separator, train, test, 6, 5, gz, 7));
    };
    const QString trainImages = dir.filePath("train-images-idx3-ubyte");
    const QString trainLabels = dir.filePath("train-labels-idx1-ubyte");
    const QString testImages = dir.filePath("t10k-images-idx3-ubyte");
    const QString testLabels = dir.filePath("t10k-labels-idx1-ubyte");
    // torchvision's MNIST/raw, given as MNIST (one down) or as the root above it (two down)
    const QString folder = layout == "subfolder" ? dir.filePath("raw") : layout == "two down" ? dir.filePath("MNIST/raw") : dir.path();
    if (folder != dir.path()) QVERIFY(QDir(dir.path()).mkpath(folder));
    if (layout == "dotted") writeSet("", ".", true, 23, 11);
    else if (layout == "prefixed") writeSet("emnist-letters-", "-", true, 23, 11);
    else if (layout == "two sets") writeSet("emnist-letters-", "-", false, 23, 11), writeSet("emnist-digits-", "-", false, 9, 4);
    else QVERIFY(testing::writeNamedMnistSet(folder, "", "-", 23, 11, 6, 5, layout.startsWith("gzip"), 7));
    if (layout == "beside a copy") writeSet("copy-", "-", false, 7, 3);
    if (layout == "missing") QVERIFY(QFile::remove(dir.filePath("t10k-labels-idx1-ubyte")));
    if (layout == "truncated") QVERIFY(QFile::resize(testImages, QFileInfo(testImages).size() - 7));
    if (layout == "not idx") {
      QFile file(testImages);
      QVERIFY(file.open(QIODevice::ReadWrite));
      file.write("PK\x03\x04", 4);  // a zip archive's first bytes where the magic number goes
    }
    // Files rewritten: the test images as writeNamedMnistSet writes them (11 of 6 x 5) in
    // other ways, and files of other shapes and types.
    const QByteArray testImagesIdx = testing::idxBytes({11, 6, 5}, testing::pattern(11 * 6 * 5));
    const auto rewrite = [](const QString& path, const QByteArray& bytes) { QVERIFY(testing::writeFile(path, bytes)); };
    const auto append = [](const QString& path, const QByteArray& bytes) {
      QFile file(path);
      QVERIFY(file.open(QIODevice::Append) && file.write(bytes) == bytes.size());
    };
    const QString testImagesGz = testImages + ".gz";
    if (layout == "raw named gz") QVERIFY(QFile::rename(testImages, testImagesGz));
    if (layout == "gzip named raw") QVERIFY(QFile::rename(testImagesGz, testImages));
    if (layout == "raw beside its gzip") rewrite(testImagesGz, testing::gzipped(testImagesIdx));
    if (layout == "raw beside other gzip") {
      rewrite(testImagesGz, testing::gzipped(testing::idxBytes({12, 6, 5}, testing::pattern(12 * 6 * 5))));
    }
    if (layout == "gzip then garbage") append(testImagesGz, "garbage!");
    if (layout == "gzip members then garbage") {
      rewrite(testImagesGz, testing::gzipped(testImagesIdx.left(100)) + testing::gzipped(testImagesIdx.mid(100)) + "garbage!");
    }
    if (layout == "gzip then gzip magic") append(testImagesGz, "\x1f\x8b" "garbage");
    if (layout == "gzip cut short") QVERIFY(QFile::resize(testImagesGz, QFileInfo(testImagesGz).size() - 7));
    if (layout == "gzip too long") rewrite(testImagesGz, testing::gzipped(testImagesIdx + "!!"));
    if (layout == "no test samples") {
      rewrite(testImages, testing::idxBytes({0, 6, 5}, {}));
      rewrite(testLabels, testing::idxBytes({0}, {}));
    }
    if (layout == "empty images") rewrite(testImages, testing::idxBytes({11, 0, 5}, {}));
    if (layout == "2-D labels") rewrite(testLabels, testing::idxBytes({11, 1}, QByteArray(11, 1)));
    if (layout == "swapped") {
      const QByteArray images = testing::fileBytes(trainImages);
      rewrite(trainImages, testing::fileBytes(trainLabels));
      rewrite(trainLabels, images);
    }
    if (layout == "flattened") rewrite(testImages, testing::idxBytes({11, 30}, testing::pattern(11 * 6 * 5)));
    if (layout == "colour HWC") rewrite(testImages, testing::idxBytes({11, 6, 5, 3}, testing::pattern(11 * 6 * 5 * 3)));
    if (layout == "one channel CHW") rewrite(testImages, testing::idxBytes({11, 1, 6, 5}, testing::pattern(11 * 6 * 5)));
    if (layout == "one channel HWC") rewrite(trainImages, testing::idxBytes({23, 6, 5, 1}, testing::pattern(23 * 6 * 5)));
    if (layout == "label count") rewrite(testLabels, testing::idxBytes({10}, QByteArray(10, 1)));
    if (layout == "one-dimensional images") rewrite(testImages, testing::idxBytes({11}, testing::pattern(11 * 6 * 5)));
    if (layout == "float") rewrite(testImages, testing::idxBytes({11, 6, 5}, testing::pattern(11 * 6 * 5 * 4), 0x0D));
    if (layout == "signed bytes") rewrite(trainLabels, testing::idxBytes({23}, QByteArray(23, 1), 0x09));
    if (layout == "stray label") {
      QFile file(trainLabels);  // label 5 of 23 (of 0-6) becomes 200
      QVERIFY(file.open(QIODevice::ReadWrite) && file.seek(8 + 5) && file.write("\xC8", 1) == 1);
    }
    if (layout == "one class") {
      rewrite(trainLabels, testing::idxBytes({23}, QByteArray(23, 0)));
      rewrite(testLabels, testing::idxBytes({11}, QByteArray(11, 0)));
    }
    if (layout == "two sizes") rewrite(testImages, testing::idxBytes({11, 5, 6}, testing::pattern(11 * 6 * 5)));

  }

 private slots:
  void initTestCase() {
    if (!QFileInfo::exists("/usr/share/datasets/fashion-mnist")) QSKIP("Fashion-MNIST is not installed");
    // One batch per step (the whole training subset), two epochs: checkpoints at steps 1 and 2.
    // The second step starts from the first's momentum, so weight decay's place before it
    // (torch.optim.SGD's) is checked too: 0.01 moves step 2's weights by about 1e-3 of
    // themselves, far above the check's 1e-6. With the cosine schedule step 2 takes lr / 2
    // (load_run's learning_rate_at), step 1 lr; with a warmup of 3 steps, step 2 takes 2 lr / 3.
    for (const auto& run : kRuns) {
      ExperimentConfig config;
      config.dataset = "fashion-mnist";
      config.model = parseModel(run.model);
      config.mode = run.mode;
      config.devices = run.devices;
      config.epochs = 2;
      config.batchSize = run.batch;
      config.trainLimit = run.batch;
      config.testLimit = 500;
      config.weightDecay = run.weightDecay;
      config.lrSchedule = run.schedule;
      config.lrWarmupSteps = run.warmupSteps;
      REQUIRE_COMPLETED(Trainer::create(config, m_dir.filePath(run.name).toStdString())->run(nullptr, nullptr));
    }
  }

  void pytorchContinuesTheRun_data() {
    QTest::addColumn<QString>("python");
    QTest::addColumn<QString>("model");
    for (const QString python : {QString(ENSEMBLELAB_TEST_PYTHON), QString("/usr/bin/python3")}) {
      for (const RunSettings& run : kRuns) QTest::newRow(qPrintable(python + " " + run.name)) << python << QString(run.name);
    }
  }
  void pytorchContinuesTheRun() {
    QFETCH(QString, python);
    QFETCH(QString, model);
    const PythonResult& check = checkOfRunsLike(python, model);
    if (check.exitCode == kNoTorch || check.exitCode == kNotStarted) QSKIP(qPrintable(check.output));
    // The check prints a JSON line naming each run that passed, and a line naming each that
    // did not (or the whole output, where Python itself failed).
    const QString run = m_dir.filePath(model);
    const QStringList lines = check.output.split('\n');
    const QStringList passed = lines.filter(QString("{\"run\": \"%1\",").arg(run));
    const QStringList failed = lines.filter("python_package_check: " + run + ":");
    QVERIFY2(passed.size() == 1 && failed.isEmpty(), qPrintable(failed.isEmpty() ? check.output : failed.join('\n')));
    qInfo().noquote() << passed.first();
  }

  // ensemble_lab.load_split reads every dataset folder the engine reads, under the names
  // downloads give the files, to the same pixels and labels, and refuses what it refuses
  // (it had looked for MNIST's exact names only, and read any bytes as an IDX file).
  void loadSplitReadsTheFoldersTheEngineReads_data() {
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("refusal");  // empty where both read the folder
    for (const SplitLayout& row : kSplitLayouts) QTest::newRow(row.name) << QString(row.layout) << QString(row.refusal);
  }
  void loadSplitReadsTheFoldersTheEngineReads() {
    QFETCH(QString, layout);
    QFETCH(QString, refusal);
    const QDir dir(splitFolders().value(layout));
    QVERIFY2(!QTest::currentTestFailed() && dir.exists(), qPrintable(layout));
    // The engine's reading, as numbers both sides can print: count, size, and the sums of the
    // test split's pixels and labels.
    QString engine;
    try {
      const DatasetPair pair = loadDataset(dir.path().toStdString());
      const Dataset& test = pair.test;
      engine = QString("%1 %2 %3 %4 %5 %6")
                   .arg(pair.train.size())
                   .arg(test.size())
                   .arg(test.height())
                   .arg(test.width())
                   .arg(test.images.sum().item<int64_t>())
                   .arg(test.labels.sum().item<int64_t>());
    } catch (const DatasetError& error) {
      engine = QString("refused: ") + error.what();
    }
    QStringList pythons{ENSEMBLELAB_TEST_PYTHON, "/usr/bin/python3"};
    pythons.removeDuplicates();
    for (const QString& python : pythons) {
      const PythonResult& reading = loadSplitReadings(python);
      if (reading.exitCode == kNotStarted || reading.output.contains("No module named 'torch'")) {
        qInfo().noquote() << python << "has no torch:" << reading.output.section('\n', -1);
        continue;
      }
      QVERIFY2(reading.exitCode == 0, qPrintable(reading.output));
      // Its line for this folder: "load_split: " and the JSON of [folder, what it read].
      QString read;
      for (const QString& line : reading.output.split('\n')) {
        if (!line.startsWith(kReadingMark)) continue;
        const QJsonArray pair = QJsonDocument::fromJson(line.mid(kReadingMark.size()).toUtf8()).array();
        if (pair.at(0).toString() == dir.path()) read = pair.at(1).toString();
      }
      QVERIFY2(!read.isEmpty(), qPrintable(reading.output));
      if (refusal.isEmpty()) {
        QVERIFY2(!engine.startsWith("refused"), qPrintable(engine));
        QCOMPARE(read, engine);
      } else {
        QVERIFY2(engine.startsWith("refused") && engine.contains(refusal), qPrintable(engine));
        QVERIFY2(read.startsWith("refused") && read.contains(refusal), qPrintable(read));
        // The same words, whole, up to where the engine names a setting ({{dataset}}), which
        // each front end words its own way (left(-1) is the whole string).
        const qsizetype mention = engine.indexOf("{{");
        QCOMPARE(read.left(mention), engine.left(mention));
      }
    }
    if (layout == "beside a copy") QVERIFY2(engine.startsWith("23 11"), qPrintable(engine));
  }

  // The README's example, copied as written (with this test's run for "runs/my-ensemble"),
  // runs, and the accuracy it prints is summary.json's (it had used x and y undefined).
  void theReadmesExampleRunsAsWritten() {
    QFile readme(ENSEMBLELAB_SOURCE_DIR "/README.md");
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const qsizetype section = text.indexOf("### In PyTorch: the `ensemble_lab` package");
    const qsizetype start = text.indexOf("```python\n", section) + 10, end = text.indexOf("```", start);
    QVERIFY(section > 0 && start > section && end > start);
    QString example = text.mid(start, end - start);
    QVERIFY(example.contains("\"runs/my-ensemble\""));
    example.replace("\"runs/my-ensemble\"", "\"" + m_dir.filePath("cnn") + "\"");
    const PythonResult ran = runPython("/usr/bin/python3", {"-c", example}, ENSEMBLELAB_SOURCE_DIR "/python");
    if (ran.exitCode == kNotStarted || ran.output.contains("No module named 'torch'")) QSKIP("no Python with torch");
    QVERIFY2(ran.exitCode == 0, qPrintable(ran.output));
    const double printed = ran.output.section('(', 1).section(')', 0, 0).toDouble();  // tensor(0.8120)
    QFile summary(m_dir.filePath("cnn/summary.json"));
    QVERIFY(summary.open(QIODevice::ReadOnly));
    const double accuracy = QJsonDocument::fromJson(summary.readAll())["ensemble"]["test_accuracy"].toDouble();
    QVERIFY2(printed > 0.1 && std::abs(printed - accuracy) < 1e-4, qPrintable(QString("%1 vs %2").arg(printed).arg(accuracy)));
  }

  // load_run of a folder of runs (a sweep's) names its runs (it had raised a bare "no such
  // file: config.json"), and one of them loads.
  void loadRunOfAFolderOfRunsNamesThem() {
    const QString folder = m_dir.filePath("a-sweep");
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(QFile::link(m_dir.filePath("cnn"), folder + "/001-lr=0.1"));
    const QString code =
        "import sys, ensemble_lab\n"
        "try:\n"
        "    ensemble_lab.load_run(sys.argv[1])\n"
        "except FileNotFoundError as error:\n"
        "    print(error)\n"
        "print(len(ensemble_lab.load_run(sys.argv[1] + '/001-lr=0.1').members))\n";
    const PythonResult read = runPython("/usr/bin/python3", {"-c", code, folder}, ENSEMBLELAB_SOURCE_DIR "/python");
    if (read.exitCode == kNotStarted || read.output.contains("No module named 'torch'")) QSKIP("no Python with torch");
    QVERIFY2(read.exitCode == 0, qPrintable(read.output));
    QCOMPARE(read.output, folder + " is a folder of 1 runs, not a run: load one of them, e.g. " + folder +
                              "/001-lr=0.1\n2");
  }

  // `pip install ./python` gives an importable package (into a folder of the test's own,
  // with no network: the build backend is the environment's setuptools). From a copy of
  // python/: setuptools builds in the folder it is given, and the source tree stays clean.
  void thePackageInstallsWithPip() {
    const QString python = ENSEMBLELAB_TEST_PYTHON;
    if (runPython(python, {"-m", "pip", "--version"}).exitCode != 0) QSKIP(qPrintable(python + " has no pip"));
    const QString source = m_dir.filePath("python"), target = m_dir.filePath("site");
    QVERIFY(copyOfThePackage(source));
    const PythonResult install =
        runPython(python, {"-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
                           "--target", target, source});
    QVERIFY2(install.exitCode == 0, qPrintable(install.output));
    const PythonResult imported = runPython(
        python, {"-c", "import ensemble_lab, sys; print(ensemble_lab.__file__); "
                       "run = ensemble_lab.load_run(sys.argv[1]); print(len(run.members), run.step)",
                 m_dir.filePath("cnn")},
        target);
    QVERIFY2(imported.exitCode == 0, qPrintable(imported.output));
    QVERIFY2(imported.output.startsWith(target), qPrintable(imported.output));
    QVERIFY2(imported.output.endsWith("2 2"), qPrintable(imported.output));
  }

  // `pip install ./python`, as the README says, keeps the PyTorch that is there: Debian's
  // python3-torch calls itself 1.13.0a0+gitunknown, a pre-release that "torch>=1.13" does not
  // admit, and pip fetched the 5 GB CUDA wheel over it. Resolved with no index, so the torch
  // installed must do; in a venv that sees the system's packages where the Python is not one
  // (Debian's own is externally managed).
  void thePackageKeepsTheInstalledTorch_data() {
    QTest::addColumn<QString>("python");
    QTest::newRow("the tests' Python") << QString(ENSEMBLELAB_TEST_PYTHON);
    QTest::newRow("Debian's python3") << QString("/usr/bin/python3");
  }
  void thePackageKeepsTheInstalledTorch() {
    QFETCH(QString, python);
    const PythonResult torch = runPython(python, {"-c", "import torch, sys; sys.exit(sys.prefix == sys.base_prefix)"});
    if (torch.exitCode == kNotStarted || torch.output.contains("No module named")) QSKIP(qPrintable(python + " has no torch"));
    QVERIFY2(torch.exitCode == 0 || torch.exitCode == 1, qPrintable(torch.output));
    const QString scratch = m_dir.filePath("keeps-torch-" + QString(QTest::currentDataTag()).replace(' ', '-'));
    QString pip = python;
    if (torch.exitCode == 1) {  // not a venv
      const PythonResult venv = runPython(python, {"-m", "venv", "--system-site-packages", scratch + "/venv"});
      if (venv.exitCode != 0) QSKIP(qPrintable(python + " makes no venv: " + venv.output));
      pip = scratch + "/venv/bin/python";
    }
    QVERIFY(copyOfThePackage(scratch + "/python"));
    const PythonResult install =
        runPython(pip, {"-m", "pip", "install", "--dry-run", "--no-index", "--no-build-isolation", scratch + "/python"});
    QVERIFY2(install.exitCode == 0 && install.output.contains("Would install ensemble-lab-"), qPrintable(install.output));
  }

 private:
  /// python/ copied to `folder`: setuptools builds in the folder it is given, and the
  /// source tree stays clean.
  static bool copyOfThePackage(const QString& folder) {
    if (!QDir().mkpath(folder + "/ensemble_lab")) return false;
    if (!QFile::copy(ENSEMBLELAB_SOURCE_DIR "/python/pyproject.toml", folder + "/pyproject.toml")) return false;
    const QDir package(ENSEMBLELAB_SOURCE_DIR "/python/ensemble_lab");
    for (const QString& file : package.entryList({"*.py"}, QDir::Files)) {
      if (!QFile::copy(package.filePath(file), folder + "/ensemble_lab/" + file)) return false;
    }
    return true;
  }
};

QTEST_APPLESS_MAIN(TestPythonPackage)
#include "TestPythonPackage.moc"
