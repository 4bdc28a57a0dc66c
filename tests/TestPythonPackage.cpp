// SPDX-License-Identifier: GPL-3.0-or-later
// python/ensemble_lab against real runs on Fashion-MNIST: each model's checkpoint loads
// strictly into its torch.nn twin, PyTorch's SGD continues the run to our next step's
// weights (1e-6; with weight decay too; a ReLU input within rounding of zero may fall on either side,
// which python_package_check.py tries both ways), and the Ensemble module scores as the run did; with
// the wheel's PyTorch and with Debian's 1.13 where it is installed. And the package installs with pip.
#include <QDir>
#include <QHash>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/config/ExperimentConfig.h"
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

  // `pip install ./python` gives an importable package (into a folder of the test's own,
  // with no network: the build backend is the environment's setuptools). From a copy of
  // python/: setuptools builds in the folder it is given, and the source tree stays clean.
  void thePackageInstallsWithPip() {
    const QString python = ENSEMBLELAB_TEST_PYTHON;
    if (runPython(python, {"-m", "pip", "--version"}).exitCode != 0) QSKIP(qPrintable(python + " has no pip"));
    const QString source = m_dir.filePath("python"), target = m_dir.filePath("site");
    QVERIFY(QDir().mkpath(source + "/ensemble_lab"));
    QVERIFY(QFile::copy(ENSEMBLELAB_SOURCE_DIR "/python/pyproject.toml", source + "/pyproject.toml"));
    const QDir package(ENSEMBLELAB_SOURCE_DIR "/python/ensemble_lab");
    for (const QString& file : package.entryList({"*.py"}, QDir::Files)) {
      QVERIFY(QFile::copy(package.filePath(file), source + "/ensemble_lab/" + file));
    }
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
};

QTEST_APPLESS_MAIN(TestPythonPackage)
#include "TestPythonPackage.moc"
