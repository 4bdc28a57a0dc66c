// SPDX-License-Identifier: GPL-3.0-or-later
// The arithmetic a run asks for is the arithmetic LibTorch is told to do while it trains:
// TF32 only for tf32 (LibTorch's own default leaves cuDNN's TF32 on, so fp32 must say off),
// deterministic kernels when deterministic, and summary.json says which it was. These read
// LibTorch's process-wide switches during a real step, so they hold in the CPU build and in
// the CUDA build without a GPU alike; docs/GPU.md's gpu-check measures the GPU's numbers.
#include <ATen/Context.h>

#include <QTemporaryDir>
#include <QtTest>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/io/RunDirectory.h"
#include "core/train/Determinism.h"
#include "core/config/ExperimentConfig.h"
#include "core/common/AutocastState.h"
#include "core/train/Precision.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingObserver.h"
#include "tests/CheckpointWeights.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

/// LibTorch's switches as one step of the run saw them.
struct BackendSwitches {
  bool tf32CuBlas = false, tf32CuDnn = false;
  bool deterministicAlgorithms = false, deterministicCuDnn = false, cudnnBenchmark = false;
  std::string cublasWorkspace;
};

BackendSwitches currentSwitches() {
  const auto& context = at::globalContext();
  BackendSwitches now;
  now.tf32CuBlas = context.allowTF32CuBLAS();
  now.tf32CuDnn = context.allowTF32CuDNN();
  now.deterministicAlgorithms = context.deterministicAlgorithms();
  now.deterministicCuDnn = context.deterministicCuDNN();
  now.cudnnBenchmark = context.benchmarkCuDNN();
  const char* workspace = std::getenv("CUBLAS_WORKSPACE_CONFIG");
  now.cublasWorkspace = workspace ? workspace : "";
  return now;
}

class SwitchesAtFirstStep final : public TrainingObserver {
 public:
  void onStep(const StepEvent& event) override {
    if (event.globalStep == 1) seen = currentSwitches();
  }
  BackendSwitches seen;
};

/// The opposite of what a run should set: every switch on (LibTorch's defaults for cuDNN's
/// TF32), determinism off, as another run or library in the process may have left them.
void setEverySwitchWrong(bool deterministicWanted) {
  auto& context = at::globalContext();
  context.setAllowTF32CuBLAS(true);
  context.setAllowTF32CuDNN(true);
  context.setDeterministicAlgorithms(!deterministicWanted, false);
  context.setDeterministicCuDNN(!deterministicWanted);
  context.setBenchmarkCuDNN(deterministicWanted);
}

}  // namespace

class TestNumerics final : public QObject {
  Q_OBJECT

 private slots:
  void init() { ::unsetenv("CUBLAS_WORKSPACE_CONFIG"); }

  void aStepRunsWithTheSwitchesItsSettingsAskFor_data() {
    QTest::addColumn<QString>("precision");
    QTest::addColumn<bool>("deterministic");
    QTest::newRow("fp32, deterministic: no TF32, deterministic kernels") << "fp32" << true;
    QTest::newRow("fp32, not deterministic: no TF32, cuDNN may benchmark") << "fp32" << false;
    QTest::newRow("bf16: autocast, and the float32 rest without TF32") << "bf16" << true;
  }
  void aStepRunsWithTheSwitchesItsSettingsAskFor() {
    QFETCH(QString, precision);
    QFETCH(bool, deterministic);
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.precision = parsePrecision(precision.toStdString());
    config.deterministic = deterministic;
    setEverySwitchWrong(deterministic);
    const BackendSwitches before = currentSwitches();
    SwitchesAtFirstStep observer;
    REQUIRE_COMPLETED(Trainer::create(config, dir.path().toStdString(), testing::syntheticData())->run(&observer, nullptr));
    QVERIFY(!observer.seen.tf32CuBlas);
    QVERIFY(!observer.seen.tf32CuDnn);
    QCOMPARE(observer.seen.deterministicAlgorithms, deterministic);
    QCOMPARE(observer.seen.deterministicCuDnn, deterministic);
    QCOMPARE(observer.seen.cudnnBenchmark, !deterministic);
    QCOMPARE(QString::fromStdString(observer.seen.cublasWorkspace), deterministic ? QString(":4096:8") : QString());
    // The run gives the process its switches back.
    const BackendSwitches after = currentSwitches();
    QCOMPARE(after.tf32CuDnn, before.tf32CuDnn);
    QCOMPARE(after.deterministicAlgorithms, before.deterministicAlgorithms);
    QCOMPARE(after.cudnnBenchmark, before.cudnnBenchmark);
  }

  void theBackwardOfAFloatOpUnderCpuBf16AutocastStaysFloat() {
    // The steps call backwardOutsideCpuAutocast: a float op's backward (the stacked members'
    // dense layers run float products on bf16-rounded operands, Bf16OnFloatKernels.h) is not
    // cast to bf16 again, and autocast is on again after it for the rest of the step.
    torch::manual_seed(2);
    const torch::Tensor a = torch::randn({16, 64}).requires_grad_(true), b = torch::randn({64, 8});
    const torch::Tensor weights = torch::randn({16, 8});
    const AutocastScope autocast(Precision::Bf16, false);
    torch::Tensor product;
    {
      const CpuAutocastPaused paused;
      product = torch::mm(a, b);
    }
    QCOMPARE(product.scalar_type(), torch::kFloat32);
    backwardOutsideCpuAutocast((product * weights).sum());
    QVERIFY(autocastEnabled(false));
    QCOMPARE(a.grad().scalar_type(), torch::kFloat32);
    const torch::Tensor expected = torch::mm(weights.to(torch::kFloat64), b.to(torch::kFloat64).t());
    // A float sum of 8 products: within float's rounding, where bf16's cast would be 2^-9 off.
    QVERIFY(torch::allclose(a.grad().to(torch::kFloat64), expected, 1e-6, 1e-6));
  }

  void tf32IsOnOnlyWhileATf32RunComputes() {
    // tf32 runs only on a GPU (TestTraining: refused on the CPU); its scope is what the run holds.
    auto& context = at::globalContext();
    context.setAllowTF32CuBLAS(false);
    context.setAllowTF32CuDNN(false);
    {
      const Tf32Scope tf32(Precision::Tf32);
      QVERIFY(context.allowTF32CuBLAS());
      QVERIFY(context.allowTF32CuDNN());
    }
    QVERIFY(!context.allowTF32CuBLAS());
    QVERIFY(!context.allowTF32CuDNN());
  }

  void summaryAndConfigSayHowTheRunComputed_data() {
    QTest::addColumn<bool>("deterministic");
    QTest::newRow("deterministic") << true;
    QTest::newRow("not deterministic, on the CPU: reproducible all the same") << false;
  }
  void summaryAndConfigSayHowTheRunComputed() {
    QFETCH(bool, deterministic);
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.precision = Precision::Bf16;
    config.deterministic = deterministic;
    REQUIRE_COMPLETED(Trainer::create(config, dir.path().toStdString(), testing::syntheticData())->run(nullptr, nullptr));
    const RunDirectory files(dir.path().toStdString());
    const nlohmann::json summary = RunDirectory::readJson(files.summaryPath());
    const nlohmann::json written = RunDirectory::readJson(files.configPath());
    QCOMPARE(QString::fromStdString(summary.at("precision").get<std::string>()), QString("bf16"));
    QCOMPARE(summary.at("deterministic").get<bool>(), deterministic);
    QVERIFY(summary.at("reproducible").get<bool>());
    QCOMPARE(QString::fromStdString(written.at("precision").get<std::string>()), QString("bf16"));
    QCOMPARE(written.at("deterministic").get<bool>(), deterministic);
    QCOMPARE(ExperimentConfig::fromFile(files.configPath()).deterministic, deterministic);
  }

  void aGpuRunWithoutDeterminismIsNotReproducibleAndSaysWhy() {
    ExperimentConfig config;
    config.deterministic = false;
    config.devices = "cuda:0*2";
    const std::string why = whyNotReproducible(config);
    QVERIFY2(QString::fromStdString(why).contains("not reproducible: {{deterministic}} is off"), why.c_str());
    config.devices = "cpu*2";
    QVERIFY(whyNotReproducible(config).empty());
    config.devices = "cuda:0*2";
    config.deterministic = true;
    QVERIFY(whyNotReproducible(config).empty());
  }

  void anOpWithoutADeterministicKernelIsNamed() {
    // LibTorch's own refusal, raised the way a CUDA kernel without a deterministic form raises it.
    const DeterminismScope deterministic(true);
    try {
      at::globalContext().alertNotDeterministic("adaptive_max_pool2d_backward_cuda");
      QFAIL("LibTorch ran an op it calls nondeterministic under deterministic algorithms");
    } catch (const c10::Error& error) {
      QCOMPARE(QString::fromStdString(nondeterministicOpIn(error.what_without_backtrace())),
               QString("adaptive_max_pool2d_backward_cuda"));
    }
    QVERIFY(nondeterministicOpIn("CUDA out of memory").empty());
  }

  void theSameSeedTwiceGivesIdenticalFiles() {
    QTemporaryDir a, b;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.logEvery = 1;
    for (const QTemporaryDir* dir : {&a, &b}) {
      REQUIRE_COMPLETED(
          Trainer::create(config, dir->path().toStdString(), testing::syntheticData())->run(nullptr, nullptr));
    }
    QCOMPARE(testing::readLines(b.filePath("metrics.csv")), testing::readLines(a.filePath("metrics.csv")));
    QVERIFY(testing::identical(testing::latestWeights(a.path().toStdString()),
                               testing::latestWeights(b.path().toStdString())));
  }
};

QTEST_APPLESS_MAIN(TestNumerics)
#include "TestNumerics.moc"
