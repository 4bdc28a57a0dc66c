// SPDX-License-Identifier: GPL-3.0-or-later
// Models take any input size, initialisation follows the member seeds, and the fused layers
// compute what LibTorch's ops compute.
#include <torch/torch.h>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <thread>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/common/SeedSequence.h"
#include "core/models/Bf16OnFloatKernels.h"
#include "core/models/ChunkedLinear.h"
#include "core/models/Classifier.h"
#include "core/models/ConvReluPool.h"
#include "core/models/GroupedConv.h"
#include "core/models/ModelRegistry.h"
#include "core/models/PanelWidth.h"
#include "core/models/ReluAvgPool.h"
#include "core/models/WinogradConv.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"
#include "core/train/RunSetup.h"
#include "core/config/ExperimentConfig.h"
#include "tests/AutogradChecks.h"
#include "tests/CheckpointWeights.h"
#include "tests/TestSupport.h"

using namespace ensemble;

class TestModels final : public QObject {
  Q_OBJECT

 private slots:
  void forwardGivesLogitsForAnyInputSize_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    for (const QString model : {"cnn", "lenet", "resnet18"}) {
      QTest::newRow(qPrintable(model + " 28x28")) << model << 28 << 28;
      QTest::newRow(qPrintable(model + " 16x16")) << model << 16 << 16;
      QTest::newRow(qPrintable(model + " 33x21")) << model << 33 << 21;
    }
    // The least each takes (rejectsImagesTooSmall: one pixel less is refused).
    QTest::newRow("cnn 4x4") << "cnn" << 4 << 4;
    QTest::newRow("lenet 12x12") << "lenet" << 12 << 12;
  }
  void forwardGivesLogitsForAnyInputSize() {
    QFETCH(QString, model);
    QFETCH(int, height);
    QFETCH(int, width);
    ModelInput input;
    input.height = height;
    input.width = width;
    input.classes = 7;
    torch::manual_seed(0);
    auto net = makeModel(model.toStdString(), input);
    const torch::Tensor logits = net->forward(torch::rand({3, 1, height, width}));
    QCOMPARE(logits.size(0), int64_t(3));
    QCOMPARE(logits.size(1), int64_t(7));
    QVERIFY(torch::isfinite(logits).all().item<bool>());
  }

  void cnnHasTheFlaxLayerShapes() {
    torch::manual_seed(0);
    auto net = makeModel("cnn", ModelInput{});
    int64_t parameters = 0;
    for (const auto& p : net->parameters()) parameters += p.numel();
    // conv 1*32*9+32, conv 32*64*9+64, dense 3136*256+256, dense 256*10+10
    QCOMPARE(parameters, int64_t(320 + 18496 + 803072 + 2570));
  }

  void rejectsImagesTooSmall() {
    ModelInput tiny;
    tiny.height = tiny.width = 3;
    QVERIFY_THROWS_EXCEPTION(ConfigError, makeModel("cnn", tiny));
    QVERIFY_THROWS_EXCEPTION(ConfigError, makeModel("lenet", tiny));
    // LeNet's second pool needs 2 pixels a side: 11 in either side is too few (10x10 and
    // 11x11 had been let through, and failed inside LibTorch).
    for (const auto& [height, width] : {std::pair{11, 11}, std::pair{12, 11}, std::pair{11, 12}, std::pair{10, 10}}) {
      ModelInput small;
      small.height = height;
      small.width = width;
      QVERIFY_THROWS_EXCEPTION(ConfigError, makeModel("lenet", small));
    }
    // resnet18 diverges below 16x16 at the default lr (ResNet18.cpp): refused, not a NaN later.
    ModelInput eightByEight;
    eightByEight.height = eightByEight.width = 8;
    QVERIFY_THROWS_EXCEPTION(ConfigError, makeModel("resnet18", eightByEight));
    ModelInput tall = eightByEight;
    tall.height = 16;
    QVERIFY_THROWS_EXCEPTION(ConfigError, makeModel("resnet18", tall));
    eightByEight.height = eightByEight.width = 16;
    QVERIFY(makeModel("resnet18", eightByEight) != nullptr);
    QVERIFY_THROWS_EXCEPTION(ConfigError, makeModel("no-such-model", ModelInput{}));
  }

  void fusedReluPoolMatchesTheUnfusedOpsBitForBit_data() {
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("threads");
    QTest::addColumn<bool>("channelsLast");
    QTest::newRow("28x28 (the CNN's first layer)") << 28 << 28 << 1 << false;
    QTest::newRow("14x14, two intra-op threads") << 14 << 14 << 2 << false;
    QTest::newRow("odd 33x21: last row and column outside every window") << 33 << 21 << 1 << false;
    QTest::newRow("2x3") << 2 << 3 << 2 << false;
    QTest::newRow("channels-last 28x28 (the CNN's layout on the CPU)") << 28 << 28 << 1 << true;
    QTest::newRow("channels-last 14x14, two intra-op threads") << 14 << 14 << 2 << true;
    QTest::newRow("channels-last odd 33x21") << 33 << 21 << 2 << true;
    QTest::newRow("channels-last 2x3") << 2 << 3 << 1 << true;
  }
  void fusedReluPoolMatchesTheUnfusedOpsBitForBit() {
    QFETCH(int, height);
    QFETCH(int, width);
    QFETCH(int, threads);
    QFETCH(bool, channelsLast);
    const auto layout = channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
    const int previousThreads = at::get_num_threads();
    at::set_num_threads(threads);
    torch::manual_seed(3);
    // Negative, zero, positive and NaN inputs: relu's edge cases, which decide the gradient.
    torch::Tensor values = torch::randn({5, 40, height, width});
    values.view(-1).index_put_({torch::arange(0, values.numel(), 7)}, 0.0);
    values.view(-1)[values.numel() / 2] = std::nanf("");
    const torch::Tensor fusedInput = values.clone(layout).requires_grad_(true);
    const torch::Tensor plainInput = values.clone(layout).requires_grad_(true);
    const torch::Tensor fused = reluAvgPool2x2(fusedInput);
    const torch::Tensor plain = torch::avg_pool2d(torch::relu(plainInput), 2);
    // The next layer's gradient in NCHW order whatever the layout (as flatten's backward gives it).
    const torch::Tensor gradOutput = torch::randn(plain.sizes());
    fused.backward(gradOutput);
    plain.backward(gradOutput);
    at::set_num_threads(previousThreads);
    QCOMPARE(fused.sizes().vec(), plain.sizes().vec());
    QVERIFY(fused.isnan().sum().item<int64_t>() == 1);  // NaN propagates, like relu's
    QVERIFY(torch::equal(torch::nan_to_num(fused), torch::nan_to_num(plain)));
    QVERIFY(torch::equal(fusedInput.grad(), plainInput.grad()));
    QVERIFY(fusedInput.grad().ne(0).any().item<bool>());
    // The fused kernel ran (not LibTorch's ops, which would pass the checks above too), and the
    // layout is kept both ways, so the convolutions around it need no reorder.
    QVERIFY2(fused.grad_fn()->name().find("ReluAvgPool2x2Function") != std::string::npos, fused.grad_fn()->name().c_str());
    QVERIFY(fused.is_contiguous(layout));
    QVERIFY(fusedInput.grad().is_contiguous(layout));
  }

  void fusedFirstLayerMatchesTheUnfusedOps_data() {
    QTest::addColumn<int>("images");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    QTest::newRow("the CNN's: 32 channels of 28x28, 13 images (chunks of 8 and 5)") << 13 << 32 << 28 << 28;
    QTest::newRow("four stacked members: 128 channels") << 3 << 128 << 28 << 28;
    QTest::newRow("odd 7x9: the last row and column outside every window") << 4 << 16 << 7 << 9;
    QTest::newRow("2x2 images, 8 channels") << 1 << 8 << 2 << 2;
  }
  void fusedFirstLayerMatchesTheUnfusedOps() {
    QFETCH(int, images);
    QFETCH(int, channels);
    QFETCH(int, height);
    QFETCH(int, width);
    torch::manual_seed(5);
    const torch::Tensor input = torch::rand({images, 1, height, width});
    const torch::Tensor weight = (torch::randn({channels, 1, 3, 3}) * 0.5).requires_grad_(true);
    const torch::Tensor bias = (torch::randn({channels}) * 0.1).requires_grad_(true);
    const torch::Tensor plainWeight = weight.detach().clone().requires_grad_(true);
    const torch::Tensor plainBias = bias.detach().clone().requires_grad_(true);
    QVERIFY(convReluPoolFusesOnCpu(input, weight));

    const torch::Tensor fused = convReluAvgPool2x2(input, weight, bias);
    namespace F = torch::nn::functional;
    const torch::Tensor plain = torch::avg_pool2d(
        torch::relu(F::conv2d(input, plainWeight, F::Conv2dFuncOptions().bias(plainBias).padding(1))), 2);
    QVERIFY2(fused.grad_fn()->name().find("ConvReluPoolFunction") != std::string::npos, fused.grad_fn()->name().c_str());
    QCOMPARE(fused.sizes().vec(), plain.sizes().vec());
    QVERIFY(fused.is_contiguous(torch::MemoryFormat::ChannelsLast));  // what the second convolution takes
    // ReLU both passed and stopped values, or the gradient test below would not test its mask.
    const double stopped = plain.eq(0).to(torch::kFloat64).mean().item<double>();
    QVERIFY2(stopped > 0.05 && stopped < 0.95, std::to_string(stopped).c_str());
    QVERIFY(torch::allclose(fused, plain, 1e-5, 1e-6));

    const torch::Tensor gradOutput = torch::randn(plain.sizes());
    fused.backward(gradOutput);
    plain.backward(gradOutput);
    const auto close = [](const torch::Tensor& a, const torch::Tensor& b) {
      // Sums of up to 13 x 28 x 28 products in another order: relative to their size.
      const double scale = b.abs().max().item<double>();
      return (a - b).abs().max().item<double>() <= 1e-5 * scale;
    };
    QVERIFY(weight.grad().abs().sum().item<double>() > 0);
    QVERIFY(close(weight.grad(), plainWeight.grad()));
    QVERIFY(close(bias.grad(), plainBias.grad()));
    QCOMPARE(weight.grad().sizes().vec(), weight.sizes().vec());
  }

  void fusedFirstLayerGivesTheSameNumbersOnAnyThreadCount() {
    torch::manual_seed(6);
    const torch::Tensor input = torch::rand({37, 1, 28, 28});
    const torch::Tensor gradOutput = torch::randn({37, 32, 14, 14});
    const int previousThreads = at::get_num_threads();
    std::vector<std::vector<torch::Tensor>> results;
    for (int threads : {1, 2, 3}) {
      at::set_num_threads(threads);
      torch::manual_seed(7);
      const torch::Tensor weight = torch::randn({32, 1, 3, 3}).requires_grad_(true);
      const torch::Tensor bias = torch::randn({32}).requires_grad_(true);
      const torch::Tensor output = convReluAvgPool2x2(input, weight, bias);
      output.backward(gradOutput);
      results.push_back({output.detach(), weight.grad(), bias.grad()});
    }
    at::set_num_threads(previousThreads);
    for (std::size_t run = 1; run < results.size(); ++run) {
      for (std::size_t i = 0; i < results[0].size(); ++i) QVERIFY(torch::equal(results[run][i], results[0][i]));
    }
  }

  // Each lane computes the same sums in either width: AVX-512's 16 channels at a time give the
  // 8-channel blocks' bits, forward and backward (48 channels: three wide blocks).
  void fusedFirstLayerGivesTheSameNumbersWithEitherRegisterWidth() {
    if (!panel_product::useWideRegisters()) QSKIP("this CPU has no AVX-512: only the 8-float blocks run here");
    torch::manual_seed(19);
    const torch::Tensor input = torch::rand({11, 1, 28, 28});
    const torch::Tensor gradOutput = torch::randn({11, 48, 14, 14});
    QVERIFY(convReluPoolFusesOnCpu(input, torch::zeros({48, 1, 3, 3})));
    const auto [wide, narrow] = testing::atEitherPanelWidth([&] {
      torch::manual_seed(20);
      const torch::Tensor weight = torch::randn({48, 1, 3, 3}).requires_grad_(true);
      const torch::Tensor bias = torch::randn({48}).requires_grad_(true);
      const torch::Tensor output = convReluAvgPool2x2(input, weight, bias);  // images need no gradient: fused
      output.backward(gradOutput);
      return std::vector<torch::Tensor>{output.detach(), weight.grad(), bias.grad()};
    });
    for (std::size_t i = 0; i < wide.size(); ++i) QVERIFY2(torch::equal(wide[i], narrow[i]), qPrintable(QString::number(i)));
  }

  // at::parallel_for's body is an `#pragma omp parallel` in LibTorch's headers: without
  // -fopenmp (core/CMakeLists.txt) our loops ran on one thread and this found one.
  void ourParallelLoopsRunOnSeveralThreads() {
    if (std::thread::hardware_concurrency() < 2) QSKIP("one core: nothing to spread over");
    const int previousThreads = at::get_num_threads();
    at::set_num_threads(2);
    std::mutex mutex;
    std::set<std::thread::id> threads;
    at::parallel_for(0, 2, 1, [&](int64_t, int64_t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // both chunks in flight at once
      const std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    });
    at::set_num_threads(previousThreads);
    QCOMPARE(int(threads.size()), 2);
  }

  void chunkedDenseLayerMatchesLinear_data() {
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("in");
    QTest::addColumn<int>("out");
    // Uneven chunks and every remainder our loops have: rows past whole panels of 4, features
    // past whole vectors of 8 (in) and past whole panels of 3 (out).
    QTest::newRow("75 x 300 -> 40") << 75 << 300 << 40;
    QTest::newRow("the CNN's first dense layer") << 128 << 3136 << 256;
    QTest::newRow("its second") << 128 << 256 << 10;
    QTest::newRow("fewer features than a vector") << 3 << 7 << 2;
    QTest::newRow("one of each") << 1 << 1 << 1;
    // The forward pass sums `in` in blocks of 256 (kInnerBlock): 600 is two whole and a part.
    QTest::newRow("inner blocks and a part") << 9 << 600 << 17;
  }
  void chunkedDenseLayerMatchesLinear() {
    QFETCH(int, batch);
    QFETCH(int, in);
    QFETCH(int, out);
    torch::manual_seed(11);
    const torch::Tensor input = torch::randn({batch, in});
    const torch::Tensor gradOutput = torch::randn({batch, out});
    std::vector<torch::Tensor> ours, theirs;
    for (const bool chunked : {true, false}) {
      torch::manual_seed(12);
      const torch::Tensor x = input.clone().requires_grad_(true);
      const torch::Tensor weight = torch::randn({out, in}).requires_grad_(true);
      const torch::Tensor bias = torch::randn({out}).requires_grad_(true);
      const torch::Tensor output = chunked ? chunkedLinear(x, weight, bias) : torch::linear(x, weight, bias);
      output.backward(gradOutput);
      (chunked ? ours : theirs) = {output.detach(), x.grad(), weight.grad(), bias.grad()};
    }
    QVERIFY(chunkedLinearSplits(input, torch::zeros({out, in})));
    for (std::size_t i = 0; i < ours.size(); ++i) {
      QCOMPARE(ours[i].sizes(), theirs[i].sizes());
      // Every element, relative to the sum of magnitudes it comes from (about sqrt(terms)).
      const double scale = std::sqrt(double(std::max({batch, in, out})));
      const double difference = (ours[i] - theirs[i]).abs().max().item<double>() / scale;
      QVERIFY2(difference < 1e-5, qPrintable(QString("tensor %1 differs by %2").arg(i).arg(difference)));
    }
  }

  // The output and both gradients are products whose every element is one lane summing in a
  // fixed order: the same bits with AVX-512's 16-float registers as with 8. A batch of 101
  // images has every panel the wide products use: 6 x 64, 4 x 32 and 8-column ones, with
  // leftover rows (101 = 16 x 6 + 5, 256 = 42 x 6 + 4) and columns (101 = 64 + 32 + 5).
  void denseLayerGivesTheSameGradientsWithEitherPanelWidth() {
    torch::manual_seed(17);
    const torch::Tensor input = torch::randn({101, 3136}), gradOutput = torch::randn({101, 256});
    if (!panel_product::useWideRegisters()) QSKIP("this CPU has no AVX-512: only the 8-float panels run here");
    const auto [wide, narrow] = testing::atEitherPanelWidth([&] {
      return testing::layerAndGradients(chunkedLinear, input, {256, 3136}, gradOutput, 18);
    });
    for (std::size_t i = 0; i < wide.size(); ++i) QVERIFY2(torch::equal(wide[i], narrow[i]), qPrintable(QString::number(i)));
  }

  void denseLayerOfOperandsThatDoNotFitIsRefusedAsLinearRefusesIt() {
    const torch::Tensor x = torch::randn({4, 12}), weight = torch::randn({5, 13}), bias = torch::randn({5});
    QVERIFY_THROWS_EXCEPTION(c10::Error, chunkedLinear(x, weight, bias));
  }

  void chunkedDenseLayerGivesTheSameNumbersOnAnyThreadCount() {
    torch::manual_seed(13);
    const torch::Tensor input = torch::randn({128, 3136});
    const torch::Tensor gradOutput = torch::randn({128, 256});
    // Also with MKL (the wheel's LibTorch), whose own linear gives other bits on 1, 2 and 3
    // threads (an AVX-512 + AMX Xeon, 2026-11-27; an AMD EPYC, 2026-11-28): the layer is ours there too.
    QVERIFY(chunkedLinearSplits(input, torch::zeros({256, 3136})));
    QVERIFY(testing::sameOnAnyThreadCount([&] {
      return testing::layerAndGradients(chunkedLinear, input, {256, 3136}, gradOutput, 14);
    }));
  }

  void fusedFirstLayerPropagatesNaNAsTheUnfusedOpsDo() {
    torch::Tensor input = torch::rand({2, 1, 8, 8});
    input[1][0][3][4] = std::nanf("");
    const torch::Tensor weight = torch::randn({8, 1, 3, 3}), bias = torch::randn({8});
    const torch::Tensor fused = convReluAvgPool2x2(input, weight, bias);
    namespace F = torch::nn::functional;
    const torch::Tensor plain =
        torch::avg_pool2d(torch::relu(F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1))), 2);
    QVERIFY(fused.isnan().any().item<bool>());
    QVERIFY(torch::equal(fused.isnan(), plain.isnan()));
  }

  void fusedFirstLayerTakesAnEmptyBatch() {
    const torch::Tensor weight = torch::randn({8, 1, 3, 3}).requires_grad_(true);
    const torch::Tensor bias = torch::randn({8}).requires_grad_(true);
    const torch::Tensor output = convReluAvgPool2x2(torch::rand({0, 1, 6, 6}), weight, bias);
    QCOMPARE(output.sizes().vec(), (std::vector<int64_t>{0, 8, 3, 3}));
    output.sum().backward();
    QVERIFY(torch::equal(weight.grad(), torch::zeros_like(weight)));
    QVERIFY(torch::equal(bias.grad(), torch::zeros_like(bias)));
  }

  void firstLayerFallsBackToTheUnfusedOpsWhereItCannotFuse() {
    const torch::Tensor weight = torch::randn({8, 1, 3, 3}), bias = torch::randn({8});
    // Images that need their own gradient (a saliency map, say): the fused backward has none.
    const torch::Tensor images = torch::rand({2, 1, 6, 6}).requires_grad_(true);
    QVERIFY(!convReluPoolFusesOnCpu(images, weight));
    convReluAvgPool2x2(images, weight, bias).sum().backward();
    QVERIFY(images.grad().defined() && images.grad().abs().sum().item<double>() > 0);
    // Three input channels, and a channel count outside the vector blocks.
    QVERIFY(!convReluPoolFusesOnCpu(torch::rand({2, 3, 6, 6}), torch::randn({8, 3, 3, 3})));
    QVERIFY(!convReluPoolFusesOnCpu(torch::rand({2, 1, 6, 6}), torch::randn({6, 1, 3, 3})));
    const torch::Tensor odd = convReluAvgPool2x2(torch::rand({2, 1, 6, 6}), torch::randn({6, 1, 3, 3}), torch::randn({6}));
    QCOMPARE(odd.sizes().vec(), (std::vector<int64_t>{2, 6, 3, 3}));
  }

  // bf16 autocast on the CPU runs our float kernels (Bf16OnFloatKernels.h): operands rounded
  // to bfloat16, products summed in float, the output and the weight's gradient rounded to
  // bfloat16. The reference: the unfused ops in double on the rounded operands, rounded once.
  void bf16AutocastOnTheCpuRunsOurKernelsOnRoundedOperands_data() {
    QTest::addColumn<QString>("layer");
    QTest::addColumn<QString>("function");  // the autograd node our kernels leave in the graph
    QTest::newRow("the first layer, fused") << "first" << "ConvReluPoolFunction";
    QTest::newRow("the second conv with ReLU and pool (Winograd)") << "second" << "WinogradConvReluPoolFunction";
    QTest::newRow("a same-padded conv (Winograd)") << "conv" << "WinogradConvFunction";
    QTest::newRow("the dense layer, chunked") << "dense" << "ChunkedLinearFunction";
    // LibTorch's float ops under these: the same graph nodes as its bf16 ones, so numbers only.
    QTest::newRow("a conv module of stride 2 (ResNet-18's)") << "module conv" << "";
    QTest::newRow("a linear module (LeNet's)") << "module linear" << "";
    QTest::newRow("two stacked members' second conv (groups)") << "grouped" << "";
  }
  void bf16AutocastOnTheCpuRunsOurKernelsOnRoundedOperands() {
    QFETCH(QString, layer);
    QFETCH(QString, function);
    namespace F = torch::nn::functional;
    torch::manual_seed(11);
    torch::Tensor input, weight;
    if (layer == "first") {
      input = torch::rand({5, 1, 9, 7});
      weight = torch::randn({32, 1, 3, 3}) * 0.5;
    } else if (layer == "dense" || layer == "module linear") {
      input = torch::randn({6, 200});
      weight = torch::randn({40, 200}) * 0.1;
    } else {
      input = torch::randn({3, 32, 8, 6});
      weight = torch::randn({64, layer == "grouped" ? 16 : 32, 3, 3}) * 0.1;
    }
    weight.requires_grad_(true);
    const torch::Tensor bias = (torch::randn({weight.size(0)}) * 0.1).requires_grad_(true);
    torch::nn::Conv2d convModule(torch::nn::Conv2dOptions(32, 64, 3).padding(1).stride(2));
    torch::nn::Linear linearModule(200, 40);
    const auto run = [&](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
      if (layer == "module conv") {  // the module's members, what applied() reads, are the test's
        convModule->weight = w, convModule->bias = b;
        return applied(*convModule, x);
      }
      if (layer == "module linear") {
        linearModule->weight = w, linearModule->bias = b;
        return applied(*linearModule, x);
      }
      if (layer == "grouped") return groupedConv3x3(x, w, b, 2);
      if (layer == "first") return convReluAvgPool2x2(x, w, b);
      if (layer == "second") return conv3x3ReluAvgPool2x2(x, w, b);
      if (layer == "conv") return conv3x3SamePadded(x, w, b);
      return chunkedLinear(x, w, b);
    };
    const auto unfused = [&](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
      if (layer == "dense" || layer == "module linear") return torch::linear(x, w, b);
      const int64_t stride = layer == "module conv" ? 2 : 1, groups = layer == "grouped" ? 2 : 1;
      const torch::Tensor conv =
          F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).padding(1).stride(stride).groups(groups));
      return layer == "first" || layer == "second" ? torch::avg_pool2d(torch::relu(conv), 2) : conv;
    };
    const auto rounded = [](const torch::Tensor& t) { return t.detach().to(torch::kBFloat16).to(torch::kFloat64); };

    torch::Tensor output;
    {
      const AutocastScope autocast(Precision::Bf16, false);
      output = run(input, weight, bias);
      if (!function.isEmpty()) QVERIFY(testing::graphHas(output, function.toStdString()));  // not LibTorch's bf16 loops
    }
    QCOMPARE(output.scalar_type(), torch::kBFloat16);  // what autocast's conv2d and linear give
    const torch::Tensor gradOutput = torch::randn(output.sizes());
    output.to(torch::kFloat32).backward(gradOutput);

    const torch::Tensor w64 = rounded(weight).requires_grad_(true);
    const torch::Tensor expected = unfused(rounded(input), w64, rounded(bias));
    expected.backward(rounded(gradOutput));
    // Float sums against double ones: a rounding to bfloat16 may fall the other way where the
    // sum lies at a tie's edge, one bf16 step (2^-7 of its power of two) at most.
    const auto agrees = [](const torch::Tensor& ours, const torch::Tensor& reference, const char* what) {
      const torch::Tensor exact = reference.to(torch::kBFloat16).to(torch::kFloat64);
      const torch::Tensor theirs = ours.to(torch::kFloat64);
      const double same = theirs.eq(exact).to(torch::kFloat64).mean().item<double>();
      const double worst = ((theirs - exact).abs() / exact.abs().clamp_min(1e-30)).max().item<double>();
      const bool ok = same >= 0.98 && worst <= std::ldexp(1.0, -7) + 1e-12;
      if (!ok) qWarning("%s: %.4f of the values as the reference's, worst %.3g relative", what, same, worst);
      return ok;
    };
    QVERIFY(agrees(output, expected, "output"));
    QCOMPARE(weight.grad().scalar_type(), torch::kFloat32);  // the weights stay float32
    QVERIFY(agrees(weight.grad(), w64.grad(), "weight gradient"));
  }

  void theCnnTrainsThroughTheFusedFirstLayerOnTheCpu() {
    const auto model = makeModel("cnn", ModelInput{});
    const torch::Tensor logits = model->forward(torch::rand({4, 1, 28, 28}));
    QVERIFY(testing::graphHas(logits, "ConvReluPoolFunction"));  // the fused layer is in its graph
  }

  void seedsDecideInitialisation() {
    const DeviceRef cpu;
    const auto weightsFor = [&](std::uint64_t seed) {
      return std::vector<TensorDict>{makeReplica("cnn", ModelInput{}, cpu, seed, 0.1, 0.9).weights()};
    };
    const std::uint64_t member0 = deriveSeed(0, SeedStream::Member, 0);
    const std::uint64_t member1 = deriveSeed(0, SeedStream::Member, 1);
    QVERIFY(member0 != member1);
    QVERIFY(testing::identical(weightsFor(member0), weightsFor(member0)));
    QVERIFY(!testing::identical(weightsFor(member0), weightsFor(member1)));
    QVERIFY(testing::maxDifference(weightsFor(member0), weightsFor(member1)) > 1e-3);
  }

  // init_std: every weight of two or more dimensions (convolutions, dense layers) drawn from
  // N(0, σ²) over the model's own initialisation, from the member's seed; biases and
  // BatchNorm keep theirs, as d2l.ai's init_weights does. Built as a run builds its replicas.
  void initStdDrawsTheWeightsFromANormal() {
    for (const char* model : {"cnn", "resnet18"}) {
      ExperimentConfig config;
      config.model = parseModel(model);
      config.seed = 3;
      const ModelInput input{1, 28, 28, 10};
      const auto weightsOf = [&](double initStd, int member) {
        config.initStd = initStd;
        return buildReplicas(config, input, {DeviceRef{}}, member).front().weights();
      };
      const TensorDict drawn = weightsOf(0.01, 0), own = weightsOf(0, 0);
      int drawnTensors = 0;
      for (const auto& item : own) {
        const torch::Tensor mine = drawn.at(item.key());
        const torch::Tensor theirs = item.value();
        if (theirs.dim() < 2) {  // biases, BatchNorm's weights and statistics
          QVERIFY2(torch::equal(mine, theirs), item.key().c_str());
          continue;
        }
        ++drawnTensors;
        QVERIFY2(!torch::equal(mine, theirs), item.key().c_str());
        if (mine.numel() < 2000) continue;  // too few values to tell a standard deviation by
        const double sd = mine.std().item<double>(), mean = mine.mean().item<double>();
        QVERIFY2(std::abs(sd - 0.01) < 0.0005 && std::abs(mean) < 0.001,
                 qPrintable(QString("%1 %2: sd %3, mean %4").arg(model, item.key().c_str()).arg(sd).arg(mean)));
      }
      QVERIFY2(drawnTensors >= 4, model);
      QVERIFY(testing::identical({weightsOf(0.01, 0)}, {drawn}));   // the seed decides them
      QVERIFY(!testing::identical({weightsOf(0.01, 1)}, {drawn}));  // each member its own
    }
  }

  // The GPU's experiment switches (core/common/Environment.h) take one value each; another is
  // refused in a sentence that names the variable and the value it takes.
  void environmentSwitchesRefuseOtherValues() {
    const char* name = environment::kGpuFirstLayer;
    ::unsetenv(name);
    QVERIFY(!environment::isSetTo(name, "unfused", "LibTorch's layers"));
    ::setenv(name, "unfused", 1);
    QVERIFY(environment::isSetTo(name, "unfused", "LibTorch's layers"));
    ::setenv(name, "fused", 1);
    try {
      environment::isSetTo(name, "unfused", "LibTorch's layers");
      QFAIL("another value was taken");
    } catch (const ConfigError& error) {
      const QString message = QString::fromStdString(error.what());
      QVERIFY2(message.contains(name) && message.contains("'fused'") && message.contains("'unfused'"), error.what());
    }
    ::unsetenv(name);
  }

  // ENSEMBLELAB_STACKED_CONV: unset, our grouped convolution in fp32 only, on the mma.sync
  // kernels (where an H200 measured it fastest; in TF32 and bf16 cuDNN's was faster); "ours"
  // (fp32 on the CUDA cores) and "cudnn" for every arithmetic, "ours-mma-sync" ours with fp32
  // and TF32 on the mma.sync kernels; anything else refused in a sentence naming the values.
  void groupedConvKernelsFollowTheMeasurementUnlessAsked() {
    const char* name = environment::kStackedConv;
    const auto chosen = [](GroupedConvKernels asked) {
      return QList<bool>{ourGroupedConvChosenFor(GroupedConvArithmetic::Float32, asked),
                         ourGroupedConvChosenFor(GroupedConvArithmetic::TensorFloat32, asked),
                         ourGroupedConvChosenFor(GroupedConvArithmetic::BFloat16, asked)};
    };
    ::unsetenv(name);
    QCOMPARE(groupedConvKernelsAsked(), GroupedConvKernels::Measured);
    QCOMPARE(chosen(GroupedConvKernels::Measured), (QList<bool>{true, false, false}));
    ::setenv(name, "ours", 1);
    QCOMPARE(groupedConvKernelsAsked(), GroupedConvKernels::Ours);
    QCOMPARE(chosen(GroupedConvKernels::Ours), (QList<bool>{true, true, true}));
    const auto onMmaSync = [](GroupedConvKernels asked) {
      return QList<bool>{groupedConvOnMmaSync(GroupedConvArithmetic::Float32, asked),
                         groupedConvOnMmaSync(GroupedConvArithmetic::TensorFloat32, asked),
                         groupedConvOnMmaSync(GroupedConvArithmetic::BFloat16, asked)};
    };
    QCOMPARE(onMmaSync(GroupedConvKernels::Ours), (QList<bool>{false, false, false}));
    ::setenv(name, "ours-mma-sync", 1);
    QCOMPARE(groupedConvKernelsAsked(), GroupedConvKernels::OursOnMmaSync);
    QCOMPARE(chosen(GroupedConvKernels::OursOnMmaSync), (QList<bool>{true, true, true}));
    QCOMPARE(onMmaSync(GroupedConvKernels::OursOnMmaSync), (QList<bool>{true, true, false}));
    QCOMPARE(onMmaSync(GroupedConvKernels::Measured), (QList<bool>{true, false, false}));
    QCOMPARE(onMmaSync(GroupedConvKernels::Cudnn), (QList<bool>{false, false, false}));
    // The bench tools' request keeps a form of ours and otherwise asks for ours.
    QCOMPARE(askForOurGroupedConvKernels(), GroupedConvKernels::OursOnMmaSync);
    QCOMPARE(QString(std::getenv(name)), QString("ours-mma-sync"));
    ::unsetenv(name);
    QCOMPARE(askForOurGroupedConvKernels(), GroupedConvKernels::Ours);
    QCOMPARE(QString(std::getenv(name)), QString("ours"));
    ::setenv(name, "ours-mma-sync", 1);
    ::setenv(name, "cudnn", 1);
    QCOMPARE(groupedConvKernelsAsked(), GroupedConvKernels::Cudnn);
    QCOMPARE(chosen(GroupedConvKernels::Cudnn), (QList<bool>{false, false, false}));
    ::setenv(name, "yes", 1);
    try {
      groupedConvKernelsAsked();
      QFAIL("another value was taken");
    } catch (const ConfigError& error) {
      const QString message = QString::fromStdString(error.what());
      QVERIFY2(message.contains(name) && message.contains("'yes'") && message.contains("'ours' or 'ours-mma-sync' or 'cudnn'"),
               error.what());
    }
    ::unsetenv(name);
  }
};

QTEST_APPLESS_MAIN(TestModels)
#include "TestModels.moc"
