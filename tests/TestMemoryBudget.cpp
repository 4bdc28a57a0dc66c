// SPDX-License-Identifier: GPL-3.0-or-later
// The per-run memory budget: the estimate is measured from the real model, scales with
// what drives memory (batch, replicas, evaluation batch), is close to what a real run's
// process uses, and a run that does not fit is refused before it writes anything.
#include <cmath>
#include <thread>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QScopeGuard>
#include <QtTest>

#include "core/common/Error.h"
#include "core/models/Classifier.h"
#include "core/models/ModelRegistry.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/MemoryEstimate.h"
#include "core/data/Dataset.h"
#include "core/train/RunSetup.h"
#include "core/train/Trainer.h"
#include "tests/ChildProcess.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

ModelInput fashionInput() {
  ModelInput input;
  input.channels = 1;
  input.height = 28;
  input.width = 28;
  input.classes = 10;
  return input;
}

/// Runs the CLI to its end and returns the peak of its anonymous resident memory (RssAnon), in
/// bytes, read from /proc while it runs. Not getrusage(RUSAGE_CHILDREN): a child's maximum there includes the
/// memory it inherits at fork, so once earlier slots had grown this test process, the
/// "baseline" was this process's size and the run's own share came out 150 MiB too small.
std::uint64_t peakRssOfCli(const QStringList& arguments) {
  testing::ChildProcess cli;
  cli.start(ENSEMBLELAB_CLI_PATH, arguments);
  if (!cli.process->waitForStarted()) return 0;  // after exec: the counter is the program's own
  const QString status = QString("/proc/%1/status").arg(cli.process->processId());
  std::uint64_t peak = 0;
  do {
    QFile file(status);
    if (!file.open(QIODevice::ReadOnly)) continue;
    // Anonymous memory only (the heap, tensors, the dataset), sampled every 10 ms: the pages of
    // the shared libraries are left out. The wheel's CUDA LibTorch maps about 480 MB of them
    // even for --help, and how many of those a process touches varied by tens of MB from run
    // to run, more than the run's own memory after the fused second layer (VmHWM measured it
    // 49-86 MiB above the baseline in three runs of one build).
    for (const QByteArray& line : file.readAll().split('\n')) {
      if (line.startsWith("RssAnon:")) peak = std::max<std::uint64_t>(peak, line.mid(8).trimmed().split(' ').front().toULongLong() * 1024);
    }
  } while (!cli.process->waitForFinished(10));
  return cli.process->exitCode() == 0 ? peak : 0;
}

using testing::runCli;

}  // namespace

class TestMemoryBudget final : public QObject {
  Q_OBJECT

 private slots:
  void theEstimateGrowsWithWhatDrivesMemory() {
    const ModelInput input = fashionInput();
    const MemoryEstimate small = estimateCpuMemory("cnn", input, 32, 100, 1, 0);
    const MemoryEstimate large = estimateCpuMemory("cnn", input, 512, 100, 1, 0);
    const MemoryEstimate wideEval = estimateCpuMemory("cnn", input, 32, 2000, 1, 0);
    const MemoryEstimate four = estimateCpuMemory("cnn", input, 32, 100, 4, 0);
    QVERIFY(small.stepBytes > 0 && small.evaluationBytes > 0);
    // Activations grow with the batch: 16x the samples, several times the step's memory (a
    // fixed part stays: the update's temporaries, the size of the largest weight), and in
    // proportion to the samples in between.
    QVERIFY2(large.stepBytes > 4 * small.stepBytes,
             qPrintable(QString("%1 vs %2").arg(large.stepBytes).arg(small.stepBytes)));
    const MemoryEstimate middle = estimateCpuMemory("cnn", input, 272, 100, 1, 0);
    const auto growth = [](std::uint64_t from, std::uint64_t to) { return double(to) - double(from); };
    QVERIFY(std::abs(growth(small.stepBytes, middle.stepBytes) - growth(middle.stepBytes, large.stepBytes)) <= 2);
    QVERIFY(wideEval.evaluationBytes > 10 * small.evaluationBytes);
    // Each replica keeps its own state; steps that run side by side each need their memory.
    QCOMPARE(four.totalBytes() - small.totalBytes(), 3 * small.modelStateBytes);
    const MemoryEstimate twoAtOnce = estimateCpuMemory("cnn", input, 32, 100, 4, 0, 2);
    QCOMPARE(twoAtOnce.totalBytes() - four.totalBytes(), std::max(small.stepBytes, small.evaluationBytes));
    // Each parameter with its gradient and momentum buffer: exactly the model's state.
    int64_t parameters = 0;
    for (const auto& p : makeModel("cnn", input)->parameters()) parameters += p.numel();
    QCOMPARE(small.modelStateBytes, std::uint64_t(3 * parameters * 4));
    QVERIFY(estimateCpuMemory("resnet18", input, 32, 100, 1, 0).modelStateBytes > 5 * small.modelStateBytes);
  }

  void theEstimateIsCloseToARealRunsMemory() {
#if defined(ENSEMBLELAB_SANITIZED)
    QSKIP("under a sanitizer the resident set is mostly its shadow memory, not the run's");
#endif
    QTemporaryDir dir;
    // glibc gives each of the replicas' threads a malloc arena and keeps what they free:
    // with the wheel's LibTorch the peak then varies by 0-400 MB from run to run (measured
    // 705-969 MB for the same run, at this commit and at the one before it). Two arenas keep
    // the run's own memory, which the estimate models, and not that retention.
    qputenv("MALLOC_ARENA_MAX", "2");
    // And glibc's dynamic mmap threshold: after a large block is freed, blocks of its size come
    // from the heap and are kept there. With the Winograd convolution the wheel build's measure
    // then ranged 221-537 MiB for the same run (Debian 221-240); with the threshold fixed at its
    // default 128 KiB, 82-97 MiB (Debian 177-181), the run's own memory.
    qputenv("MALLOC_MMAP_THRESHOLD_", "131072");
    const auto restore = qScopeGuard([] {
      qunsetenv("MALLOC_ARENA_MAX");
      qunsetenv("MALLOC_MMAP_THRESHOLD_");
    });
    const std::uint64_t baseline = peakRssOfCli({"devices"});  // the program with LibTorch loaded
    const std::uint64_t peak =
        peakRssOfCli({"train", "--epochs", "1", "--train-limit", "2560", "--batch-size", "256", "--out", dir.filePath("run")});
    QVERIFY(baseline > 0 && peak > baseline);
    const std::uint64_t used = peak - baseline;
    // Fashion-MNIST as loaded (all 70,000 images stay in memory: the limit is a view),
    // four CNN members at batch 256, the default evaluation batch.
    const MemoryEstimate estimate = estimateCpuMemory("cnn", fashionInput(), 256, kCpuEvalBatchSize, 4,
                                                      70000ull * (784 + 8),
                                                      int(std::min(4u, std::thread::hardware_concurrency())));
    const double ratio = double(estimate.totalBytes()) / double(used);
    qInfo("estimate %s, measured %s above the baseline: ratio %.2f", formatBytes(estimate.totalBytes()).c_str(),
          formatBytes(used).c_str(), ratio);
    // Measured with anonymous memory, after the fused second layer (2026-11-28): 0.92-0.94
    // (Debian build, 134-137 MiB, three tries) and 0.91 (wheel build, 138-139 MiB, four);
    // with VmHWM it had been 0.85-0.86 and 1.46-2.62. The budget check uses the estimate as an
    // upper bound, so the test allows more room above (2.5x) than below (0.5x).
    QVERIFY2(ratio > 0.5 && ratio < 2.5, qPrintable(QString::number(ratio)));
  }

  void aRunOverItsBudgetIsRefusedBeforeItWritesAnything() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.memoryBudgetMb = 1;
    try {
      Trainer::create(config, dir.filePath("run").toStdString(), testing::syntheticData());
      QFAIL("a run over its budget was accepted");
    } catch (const ConfigError& error) {
      QVERIFY2(QString(error.what()).contains("more than its memory budget of 1 MiB"), error.what());
    }
    config.memoryBudgetMb = 4096;
    REQUIRE_COMPLETED(
        Trainer::create(config, dir.filePath("fits").toStdString(), testing::syntheticData())
            ->run(nullptr, nullptr));

    QString errors;
    QCOMPARE(runCli({"train", "--dataset", "synthetic", "--memory-budget", "1", "--out", dir.filePath("cli")}, &errors), 1);
    QVERIFY2(errors.contains("raise --memory-budget"), qPrintable(errors));
    QVERIFY(!QFile::exists(dir.filePath("cli")));
  }

  // A model too large for its budget by its weights alone (the cnn's dense layer grows with
  // the images: 1.7 GiB of state at 384x384) is refused by its size, before a step is measured
  // (a step allocates a gradient of every weight more; the measuring had run a small machine
  // out of memory, and the message then advised setting the budget that was set).
  void aModelOverItsBudgetByItsWeightsIsRefusedBeforeAStep() {
    ModelInput large = fashionInput();
    large.height = large.width = 384;
    const MemoryEstimate sized = estimateCpuMemory("cnn", large, 32, 100, 1, 0, 1, std::uint64_t(500) << 20);
    QVERIFY(!sized.stepsMeasured && sized.stepBytes == 0 && sized.evaluationBytes == 0);
    QVERIFY2(sized.modelStateBytes > (std::uint64_t(800) << 20), qPrintable(QString::number(sized.modelStateBytes)));
    QVERIFY(estimateCpuMemory("cnn", fashionInput(), 32, 100, 1, 0, 1, std::uint64_t(500) << 20).stepsMeasured);

    QTemporaryDir dir;
    const QString data = dir.filePath("large");
    QVERIFY(QDir().mkpath(data));
    testing::writeMnistFolder(data, 4, 2, 384, 384, false);
    QString errors;
    QCOMPARE(runCli({"train", "--dataset", data, "--mode", "single", "--batch-size", "2", "--memory-budget", "500",
                     "--out", dir.filePath("run")},
                    &errors),
             1);
    QVERIFY2(QRegularExpression("this run needs more than [0-9.]+ (MiB|GiB) of memory before its first step \\(dataset "
                                "[0-9]+ MiB, 1 replica\\(s\\) of [0-9.]+ (MiB|GiB): the cnn's weights on 384x384 images, "
                                "their gradients and momentum\\), more than its memory budget of 500 MiB; use a smaller "
                                "model or smaller images")
                 .match(errors)
                 .hasMatch(),
             qPrintable(errors));
    QVERIFY(!QFile::exists(dir.filePath("run")));
  }

  // A model the machine cannot even build (8192x8192 images: a dense layer of 128 GiB)
  // is refused as not fitting, naming the allocation that failed, not with advice to set
  // the budget that was set.
  void aModelTheMachineCannotBuildIsRefusedAsNotFitting() {
#if defined(ENSEMBLELAB_SANITIZED)
    QSKIP("a sanitizer's allocator aborts on a request this large instead of failing it");
#endif
    QFile overcommit("/proc/sys/vm/overcommit_memory");
    if (!overcommit.open(QIODevice::ReadOnly) || overcommit.readAll().trimmed() == "1") {
      QSKIP("this kernel grants any allocation (vm.overcommit_memory 1): building the model would run the machine out of memory");
    }
    ModelInput huge = fashionInput();
    huge.height = huge.width = 8192;
    ExperimentConfig config = testing::smallConfig("single", "cpu");
    config.memoryBudgetMb = 1 << 30;  // a budget that would admit it: the machine is what it does not fit
    const std::shared_ptr<const DatasetPair> data = testing::syntheticData();
    try {
      checkMemoryBudget(config, {DeviceRef{}}, 1, *data, huge);
      QFAIL("a model of 128 GiB was measured");
    } catch (const ConfigError& error) {
      QVERIFY2(QString(error.what()).startsWith("this run does not fit in this machine's memory: measuring one replica of it "
                                                "(the cnn on 8192x8192 images, its weights, gradients and a step at batch 2) "
                                                "already ran out of host memory (an allocation of ") &&
                   QString(error.what()).endsWith(" failed); use a smaller model or smaller images"),
               error.what());
    }
  }

  // The budget is for training: eval of a run that has one, on a dataset the run would be
  // over its budget to train on, scores it (it was refused, naming --batch-size, --devices
  // and --memory-budget, none of which eval takes).
  void anEvaluationIsNotHeldToTheTrainingBudget() {
    QTemporaryDir dir;
    QString errors;
    QCOMPARE(runCli({"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "1", "--train-limit", "256",
                     "--memory-budget", "20", "--out", dir.filePath("run")},
                    &errors),
             0);
    const QString big = dir.filePath("big");  // 16x16 as the synthetic set, 100,000 training images
    QVERIFY(QDir().mkpath(big));
    testing::writeMnistFolder(big, 100000, 500, 16, 16, false);
    QCOMPARE(runCli({"train", "--dataset", big, "--devices", "cpu*2", "--memory-budget", "20", "--out", dir.filePath("over")},
                    &errors),
             1);
    QVERIFY2(errors.contains("more than its memory budget of 20 MiB"), qPrintable(errors));
    QCOMPARE(runCli({"eval", "--run", dir.filePath("run"), "--dataset", big}, &errors), 0);
    QVERIFY2(!errors.contains("memory budget"), qPrintable(errors));
  }
};

QTEST_APPLESS_MAIN(TestMemoryBudget)
#include "TestMemoryBudget.moc"
