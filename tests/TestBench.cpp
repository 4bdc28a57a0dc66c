// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-bench, as bench/run_bench.py runs it: one JSON line whose member count comes
// from the devices the run actually trained on, and a clean exit on every path (the GPU
// bench once counted members against a machine without GPUs and then crashed on exit); and
// the scripts that compare GPU runs by their losses (bench/run_losses.py).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <utility>

namespace {

struct BenchResult {
  int exitCode = -1;  ///< -1: crashed or timed out
  QJsonObject json;
  QString errors;
};

/// Waits for a started process (five minutes at most): its exit code, and what it wrote to
/// stderr. Its stdout is left for the caller.
BenchResult finished(QProcess& process) {
  BenchResult result;
  if (!process.waitForFinished(300000)) return result;
  result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  result.errors = QString::fromUtf8(process.readAllStandardError());
  return result;
}

BenchResult runBench(const QStringList& arguments) {
  QProcess bench;
  bench.start(ENSEMBLELAB_BENCH_PATH, QStringList{"--dataset", "synthetic", "--batch-size", "16", "--steps", "4",
                                                  "--warmup", "1", "--test-limit", "64"} + arguments);
  BenchResult result = finished(bench);
  result.json = QJsonDocument::fromJson(bench.readAllStandardOutput()).object();
  return result;
}

/// bench/run_bench.py --gpu --on-cpu with our stacked side only (no peer: no torch needed), on
/// this build's bench binary, 5 steps of 32 images after 2 warm-up, `extra` appended.
BenchResult runGpuBenchOnCpu(const QString& json, const QStringList& extra) {
  QDir build = QFileInfo(ENSEMBLELAB_BENCH_PATH).dir();
  build.cdUp();
  QProcess script;
  script.start("python3", QStringList{ENSEMBLELAB_SOURCE_DIR "/bench/run_bench.py", "--gpu", "--on-cpu", "--batches",
                                      "32", "--precisions", "fp32", "--warmup", "2", "--repeats", "1", "--test-limit",
                                      "200", "--sides", "ours-stacked", "--cuda-build", build.path(), "--json", json,
                                      "--markdown", json + ".md"} +
                              extra);
  BenchResult result = finished(script);
  QFile file(json);
  if (file.open(QIODevice::ReadOnly)) result.json = QJsonDocument::fromJson(file.readAll()).object();
  return result;
}

/// Runs `program` with `arguments`; stdout and stderr together in `errors`.
BenchResult runProcess(const QString& program, const QStringList& arguments) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(program, arguments);
  BenchResult result = finished(process);
  result.errors += QString::fromUtf8(process.readAllStandardOutput());
  return result;
}

}  // namespace

class TestBench final : public QObject {
  Q_OBJECT

 private slots:
  void membersAndTheirThroughputComeFromTheDevicesTrained_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("devices");
    QTest::addColumn<int>("members");
    QTest::newRow("ensemble of 3 on the CPU") << QStringList{"--devices", "cpu*3"} << "cpu*3" << 3;
    QTest::newRow("stacked ensemble of 2") << QStringList{"--devices", "cpu*2", "--member-form", "stacked"} << "cpu*2"
                                           << 2;
    QTest::newRow("data-parallel on 2 replicas: one model")
        << QStringList{"--devices", "cpu*2", "--mode", "data-parallel"} << "cpu*2" << 1;
  }
  void membersAndTheirThroughputComeFromTheDevicesTrained() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, devices);
    QFETCH(int, members);
    const BenchResult result = runBench(arguments);
    QVERIFY2(result.exitCode == 0, qPrintable(result.errors));
    QCOMPARE(result.json.value("devices").toString(), devices);
    QCOMPARE(result.json.value("members").toInt(), members);
    const double images = result.json.value("batch_images_per_second").toDouble();
    const double memberImages = result.json.value("member_images_per_second").toDouble();
    QVERIFY2(images > 0, qPrintable(QJsonDocument(result.json).toJson()));
    QVERIFY(qAbs(memberImages - images * members) <= 1e-6 * memberImages);
    // What run_bench.py compares with the peers' images_per_second: member-images/s.
    QCOMPARE(result.json.value("images_per_second").toDouble(), memberImages);
    QVERIFY(result.json.value("eval_images_per_second").toDouble() > 0);
    QCOMPARE(result.json.value("precision").toString(), QString("fp32"));
    QCOMPARE(result.json.value("peak_gpu_memory_mb").toDouble(), 0.0);  // no GPU used
  }

  void badInputExitsWithASentenceNotACrash_data() {
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("says");
    QTest::newRow("a GPU this machine lacks (after LibTorch started)")
        << QStringList{"--devices", "cuda:7"} << 1 << "cuda:7";
    QTest::newRow("an unknown precision") << QStringList{"--precision", "fp8"} << 2 << "fp8";
    QTest::newRow("a step count that is no number") << QStringList{"--steps", "many"} << 2 << "--steps expects an integer, got 'many'";
  }
  void badInputExitsWithASentenceNotACrash() {
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, says);
    const BenchResult result = runBench(arguments);
    QVERIFY2(result.exitCode == exitCode, qPrintable(QString("exit %1: %2").arg(result.exitCode).arg(result.errors)));
    QVERIFY2(result.errors.contains(says), qPrintable(result.errors));
    QVERIFY2(!result.errors.contains("frame #"), qPrintable(result.errors));  // no LibTorch backtrace
  }

  // run_bench.py --gpu --resume: a grid longer than one GPU call is measured over several. The
  // second call keeps the first call's point as it was measured (a re-measurement would give
  // other speeds) and measures only the new one; a call with another setup is refused in a
  // sentence and leaves the file as it was.
  void gpuBenchResumeKeepsTheEarlierPointsOfTheSameSetup() {
    QTemporaryDir dir;
    const QString json = dir.filePath("grid.json");
    const BenchResult first = runGpuBenchOnCpu(json, {"--members", "2", "--steps", "5"});
    QVERIFY2(first.exitCode == 0, qPrintable(first.errors));
    const QJsonArray firstPoints = first.json.value("points").toArray();
    QCOMPARE(firstPoints.size(), 1);

    const BenchResult second = runGpuBenchOnCpu(json, {"--members", "2,3", "--steps", "5", "--resume"});
    QVERIFY2(second.exitCode == 0, qPrintable(second.errors));
    const QJsonArray points = second.json.value("points").toArray();
    QCOMPARE(points.size(), 2);
    QCOMPARE(points.at(0).toObject(), firstPoints.at(0).toObject());  // kept, not measured again
    QCOMPARE(points.at(1).toObject().value("members").toInt(), 3);
    QVERIFY(points.at(1).toObject().value("rows").toArray().at(0).toObject().value("images_per_second").toDouble() > 0);
    QCOMPARE(second.json.value("resumed").toObject().value("points").toInt(), 1);
    QFile table(json + ".md");
    QVERIFY(table.open(QIODevice::ReadOnly));
    QVERIFY(QString::fromUtf8(table.readAll()).contains("1 point(s) kept from an earlier call"));

    const BenchResult other = runGpuBenchOnCpu(json, {"--members", "2,3", "--steps", "6", "--resume"});
    QVERIFY2(other.exitCode != 0 && other.errors.contains("other steps"), qPrintable(other.errors));
    QVERIFY(!other.errors.contains("Traceback"));
    QCOMPARE(other.json, second.json);
  }

  // bench/run_losses.py, which gpu-check.sh (2c, 2d), gpu_layers_ab.sh and loss_drift.py compare
  // runs by, on real CLI runs logged every step: a run and its repeat agree to the bit, a 1%
  // learning rate does not, in either mode; a step the runs never logged is named, not guessed.
  void runLossesComparesRunsStepByStep() {
    QTemporaryDir dir;
    const auto train = [&](const QString& name, const QString& lr) {
      return runProcess(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--mode", "ensemble", "--devices",
                                               "cpu*2", "--epochs", "1", "--train-limit", "640", "--batch-size", "64",
                                               "--log-every", "1", "--seed", "1", "--lr", lr, "--out", dir.filePath(name)});
    };
    for (const auto& [name, lr] : {std::pair<QString, QString>{"a", "0.05"}, {"again", "0.05"}, {"lr", "0.0505"}}) {
      const BenchResult run = train(name, lr);
      QVERIFY2(run.exitCode == 0, qPrintable(run.errors));
    }
    const QString script = ENSEMBLELAB_SOURCE_DIR "/bench/run_losses.py";
    const auto compare = [&](const QString& other, const QStringList& rest) {
      return runProcess("python3", QStringList{script, dir.filePath("a"), dir.filePath(other)} + rest);
    };
    BenchResult r = compare("again", {"10", "0"});
    QVERIFY2(r.exitCode == 0 && r.errors.contains("batch train loss at step 10"), qPrintable(r.errors));
    r = compare("again", {"10", "0", "mean"});
    QVERIFY2(r.exitCode == 0 && r.errors.contains("mean train loss of steps 1-10"), qPrintable(r.errors));
    r = compare("lr", {"10", "1e-9"});
    QVERIFY2(r.exitCode == 1, qPrintable(r.errors));
    r = compare("lr", {"10", "1e-9", "mean"});
    QVERIFY2(r.exitCode == 1, qPrintable(r.errors));
    r = compare("lr", {"10", "1", "mean"});  // within a loose bound: passes
    QVERIFY2(r.exitCode == 0, qPrintable(r.errors));
    r = compare("again", {"11", "0"});
    QVERIFY2(r.exitCode == 1 && r.errors.contains("does not log the ensemble every step up to 11") &&
                 !r.errors.contains("Traceback"),
             qPrintable(r.errors));
    r = compare("again", {"10"});
    QVERIFY2(r.exitCode == 2 && r.errors.contains("RUN_A RUN_B STEP TOLERANCE"), qPrintable(r.errors));
  }
};

QTEST_APPLESS_MAIN(TestBench)
#include "TestBench.moc"
