// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-bench, as bench/run_bench.py runs it: one JSON line whose member count comes
// from the devices the run actually trained on, and a clean exit on every path (the GPU
// bench once counted members against a machine without GPUs and then crashed on exit).
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

namespace {

struct BenchResult {
  int exitCode = -1;  ///< -1: crashed or timed out
  QJsonObject json;
  QString errors;
};

BenchResult runBench(const QStringList& arguments) {
  QProcess bench;
  bench.start(ENSEMBLELAB_BENCH_PATH, QStringList{"--dataset", "synthetic", "--batch-size", "16", "--steps", "4",
                                                  "--warmup", "1", "--test-limit", "64"} + arguments);
  BenchResult result;
  if (!bench.waitForFinished(300000)) return result;
  result.exitCode = bench.exitStatus() == QProcess::NormalExit ? bench.exitCode() : -1;
  result.json = QJsonDocument::fromJson(bench.readAllStandardOutput()).object();
  result.errors = QString::fromUtf8(bench.readAllStandardError());
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
};

QTEST_APPLESS_MAIN(TestBench)
#include "TestBench.moc"
