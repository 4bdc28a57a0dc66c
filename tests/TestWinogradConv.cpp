// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU's Winograd convolution (core/models/WinogradConv.h) computes what LibTorch's conv2d
// computes, forward and backward, on any image size, with the same numbers on any thread
// count; with ReLU and the pool as its output stage it gives the separate ops' bits; and the
// CNN trains through it.
#include <torch/torch.h>

#include <QtTest>

#include "core/common/Environment.h"
#include "core/models/Classifier.h"
#include "core/models/ModelRegistry.h"
#include "core/models/PanelWidth.h"
#include "core/models/ReluAvgPool.h"
#include "core/models/WinogradConv.h"
#include "tests/AutogradChecks.h"
#include "tests/TensorChecks.h"

using namespace ensemble;
using testing::closeRelative;

/// The columns of a data-driven case's shape: images, channels in and out, height, width.
void addShapeColumns() {
  QTest::addColumn<int>("images");
  QTest::addColumn<int>("inChannels");
  QTest::addColumn<int>("outChannels");
  QTest::addColumn<int>("height");
  QTest::addColumn<int>("width");
}

class TestWinogradConv final : public QObject {
  Q_OBJECT

 private slots:
  void matchesConv2dForwardAndBackward_data() {
    addShapeColumns();
    QTest::newRow("the CNN's: 32 to 64 channels, 14x14, 19 images (chunks of 16 and 3)") << 19 << 32 << 64 << 14 << 14;
    QTest::newRow("odd 7x9: half tiles at the bottom and right edges") << 3 << 16 << 24 << 7 << 9;
    QTest::newRow("1x1 images: every tap but the centre is padding") << 2 << 8 << 8 << 1 << 1;
    QTest::newRow("a 32x32 dataset's second layer, 40 output channels") << 2 << 32 << 40 << 16 << 16;
  }
  void matchesConv2dForwardAndBackward() {
    QFETCH(int, images);
    QFETCH(int, inChannels);
    QFETCH(int, outChannels);
    QFETCH(int, height);
    QFETCH(int, width);
    torch::manual_seed(11);
    const torch::Tensor input = torch::randn({images, inChannels, height, width})
                                    .contiguous(torch::MemoryFormat::ChannelsLast)
                                    .requires_grad_(true);
    const torch::Tensor weight = (torch::randn({outChannels, inChannels, 3, 3}) * 0.2).requires_grad_(true);
    const torch::Tensor bias = torch::randn({outChannels}).requires_grad_(true);
    const torch::Tensor plainInput = input.detach().clone().requires_grad_(true);
    const torch::Tensor plainWeight = weight.detach().clone().requires_grad_(true);
    const torch::Tensor plainBias = bias.detach().clone().requires_grad_(true);
    QVERIFY(winogradConvolves(input, weight));

    const torch::Tensor output = conv3x3SamePadded(input, weight, bias);
    namespace F = torch::nn::functional;
    const torch::Tensor plain = F::conv2d(plainInput, plainWeight, F::Conv2dFuncOptions().bias(plainBias).padding(1));
    QVERIFY(testing::graphHas(output, "WinogradConvFunction"));
    QCOMPARE(output.sizes().vec(), plain.sizes().vec());
    QVERIFY(output.is_contiguous(torch::MemoryFormat::ChannelsLast));  // what the fused pool keeps
    QVERIFY(closeRelative(output, plain, 1e-5));

    const torch::Tensor gradOutput = torch::randn(plain.sizes());
    output.backward(gradOutput);
    plain.backward(gradOutput);
    QVERIFY(closeRelative(input.grad(), plainInput.grad(), 1e-5));
    QVERIFY(closeRelative(weight.grad(), plainWeight.grad(), 1e-5));
    QVERIFY(closeRelative(bias.grad(), plainBias.grad(), 1e-5));
    QCOMPARE(weight.grad().sizes().vec(), weight.sizes().vec());
  }

  // The edges are where a transform that reads or writes the padding goes wrong: compare each
  // border pixel of the input's gradient on its own, not only the largest error.
  void inputGradientIsRightAtEveryEdgePixel() {
    torch::manual_seed(12);
    const torch::Tensor input = torch::randn({1, 8, 5, 6}).requires_grad_(true);
    const torch::Tensor weight = torch::randn({8, 8, 3, 3}).requires_grad_(true);
    const torch::Tensor plainInput = input.detach().clone().requires_grad_(true);
    conv3x3SamePadded(input, weight, torch::zeros({8})).pow(2).sum().backward();
    namespace F = torch::nn::functional;
    F::conv2d(plainInput, weight.detach(), F::Conv2dFuncOptions().padding(1)).pow(2).sum().backward();
    const torch::Tensor error = (input.grad() - plainInput.grad()).abs().amax({0, 1});
    QVERIFY2(error.max().item<double>() <= 1e-4 * plainInput.grad().abs().max().item<double>(),
             torch::str(error).c_str());
  }

  void givesTheSameNumbersOnAnyThreadCount() {
    torch::manual_seed(13);
    const torch::Tensor input = torch::randn({37, 32, 14, 14}).contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor gradOutput = torch::randn({37, 64, 14, 14});
    QVERIFY(testing::sameOnAnyThreadCount([&] {
      return testing::layerAndGradients(conv3x3SamePadded, input, {64, 32, 3, 3}, gradOutput, 14);
    }));
  }

  // Each output is one vector lane summing in the same order whatever the register's width:
  // AVX-512's 16-float panels give the 8-float panels' numbers bit for bit.
  void givesTheSameNumbersWithEitherPanelWidth() {
    if (!panel_product::useWideRegisters()) QSKIP("this CPU has no AVX-512: only the 8-float panels run here");
    torch::manual_seed(15);
    const torch::Tensor input = torch::randn({9, 32, 14, 14}).contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor gradOutput = torch::randn({9, 64, 14, 14});
    const auto [wide, narrow] = testing::atEitherPanelWidth([&] {
      return testing::layerAndGradients(conv3x3SamePadded, input, {64, 32, 3, 3}, gradOutput, 16);
    });
    for (std::size_t i = 0; i < wide.size(); ++i) QVERIFY2(torch::equal(wide[i], narrow[i]), qPrintable(QString::number(i)));
  }

  void propagatesNaNAsConv2dDoes() {
    torch::Tensor input = torch::randn({2, 8, 6, 6});
    input[1][3][2][4] = std::numeric_limits<float>::quiet_NaN();
    const torch::Tensor output = conv3x3SamePadded(input, torch::randn({8, 8, 3, 3}), torch::randn({8}));
    // The poisoned image is NaN around the pixel; the other image is clean.
    QVERIFY(output[1].isnan().any().item<bool>());
    QVERIFY(!output[0].isnan().any().item<bool>());
  }

  void takesAnEmptyBatch() {
    const torch::Tensor weight = torch::randn({8, 8, 3, 3}).requires_grad_(true);
    const torch::Tensor bias = torch::randn({8}).requires_grad_(true);
    const torch::Tensor output = conv3x3SamePadded(torch::rand({0, 8, 6, 6}), weight, bias);
    QCOMPARE(output.sizes().vec(), (std::vector<int64_t>{0, 8, 6, 6}));
    output.sum().backward();
    QVERIFY(torch::equal(weight.grad(), torch::zeros_like(weight)));
    QVERIFY(torch::equal(bias.grad(), torch::zeros_like(bias)));
  }

  void fallsBackToConv2dWhereItCannotRun() {
    // Channel counts outside the vector blocks, and another type.
    QVERIFY(!winogradConvolves(torch::rand({2, 6, 6, 6}), torch::randn({8, 6, 3, 3})));
    QVERIFY(!winogradConvolves(torch::rand({2, 8, 6, 6}), torch::randn({6, 8, 3, 3})));
    QVERIFY(!winogradConvolves(torch::rand({2, 8, 6, 6}, torch::kFloat64), torch::randn({8, 8, 3, 3}, torch::kFloat64)));
    const torch::Tensor odd = conv3x3SamePadded(torch::rand({2, 6, 5, 5}), torch::randn({6, 6, 3, 3}), torch::randn({6}));
    QCOMPARE(odd.sizes().vec(), (std::vector<int64_t>{2, 6, 5, 5}));
  }

  // ReLU and the pool as the convolution's output stage: the bits of the separate ops
  // (reluAvgPool2x2 on conv3x3SamePadded's output), forward and all three gradients.
  void reluPoolStageGivesTheBitsOfTheSeparateOps_data() {
    addShapeColumns();
    QTest::newRow("the CNN's: 32 to 64 channels, 14x14, 19 images (chunks of 16 and 3)") << 19 << 32 << 64 << 14 << 14;
    QTest::newRow("odd 7x9: the last row and column of tiles outside every window") << 3 << 16 << 24 << 7 << 9;
    QTest::newRow("2x3: one window, 40 channels (8-float transforms)") << 2 << 32 << 40 << 2 << 3;
    QTest::newRow("13x16 with 16 channels") << 2 << 16 << 16 << 13 << 16;
  }
  void reluPoolStageGivesTheBitsOfTheSeparateOps() {
    QFETCH(int, images);
    QFETCH(int, inChannels);
    QFETCH(int, outChannels);
    QFETCH(int, height);
    QFETCH(int, width);
    torch::manual_seed(16);
    // Half the convolution's outputs are below zero, so ReLU's mask matters; exact zeros too.
    torch::Tensor input = torch::randn({images, inChannels, height, width});
    input.index_put_({0}, 0.f);
    input = input.contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor gradPooled = torch::randn({images, outChannels, height / 2, width / 2});
    const auto fused = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
      const torch::Tensor pooled = conv3x3ReluAvgPool2x2(x, w, b);
      if (!testing::graphHas(pooled, "WinogradConvReluPoolFunction")) throw std::runtime_error("the fused stage did not run");
      return pooled;
    };
    const auto separate = [](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
      return reluAvgPool2x2(conv3x3SamePadded(x, w, b));
    };
    const std::vector<int64_t> weightShape{outChannels, inChannels, 3, 3};
    const auto ours = testing::layerAndGradients(fused, input, weightShape, gradPooled, 17);
    const auto theirs = testing::layerAndGradients(separate, input, weightShape, gradPooled, 17);
    QVERIFY(ours[0].is_contiguous(torch::MemoryFormat::ChannelsLast));
    QVERIFY(ours[0].lt(theirs[0].max()).any().item<bool>() && theirs[0].eq(0).any().item<bool>());
    const char* names[] = {"pooled output", "input's gradient", "weight's gradient", "bias's gradient"};
    for (std::size_t i = 0; i < ours.size(); ++i) QVERIFY2(torch::equal(ours[i], theirs[i]), names[i]);

    // An evaluation (no gradient anywhere) runs the stage without ReLU's mask: the same output.
    torch::NoGradGuard noGradient;
    torch::manual_seed(17);
    const torch::Tensor weight = torch::randn(weightShape), bias = torch::randn({outChannels});
    QVERIFY(torch::equal(conv3x3ReluAvgPool2x2(input, weight, bias), ours[0]));
  }

  void reluPoolStageGivesTheSameNumbersOnAnyThreadCountAndPanelWidth() {
    torch::manual_seed(18);
    const torch::Tensor input = torch::randn({37, 32, 14, 14}).contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor gradPooled = torch::randn({37, 64, 7, 7});
    const auto work = [&] {
      return testing::layerAndGradients(conv3x3ReluAvgPool2x2, input, {64, 32, 3, 3}, gradPooled, 19);
    };
    QVERIFY(testing::sameOnAnyThreadCount(work));
    if (!panel_product::useWideRegisters()) QSKIP("this CPU has no AVX-512: only the 8-float panels run here");
    const auto [wide, narrow] = testing::atEitherPanelWidth(work);
    for (std::size_t i = 0; i < wide.size(); ++i) QVERIFY2(torch::equal(wide[i], narrow[i]), qPrintable(QString::number(i)));
  }

  // ReLU's mask has one layout at either width: a forward on 16-float registers and its
  // backward on 8-float ones give the numbers both passes give at one width.
  void reluMaskReadsTheSameAtEitherWidth() {
    if (!panel_product::useWideRegisters()) QSKIP("this CPU has no AVX-512: only the 8-float code runs here");
    torch::manual_seed(21);
    const torch::Tensor input = torch::randn({5, 32, 10, 10}).contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor gradPooled = torch::randn({5, 64, 5, 5});
    const auto work = [&](bool narrowBackward) {
      return testing::layerAndGradients(
          [&](const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
            const torch::Tensor pooled = conv3x3ReluAvgPool2x2(x, w, b);
            if (narrowBackward) ::setenv(environment::kCpuVectorFloats, "8", 1);
            return pooled;
          },
          input, {64, 32, 3, 3}, gradPooled, 22);
    };
    const auto oneWidth = work(false);
    const auto mixed = work(true);
    ::unsetenv(environment::kCpuVectorFloats);
    for (std::size_t i = 0; i < mixed.size(); ++i) QVERIFY2(torch::equal(mixed[i], oneWidth[i]), qPrintable(QString::number(i)));
  }

  void reluPoolStagePassesNaNAsReluDoes() {
    torch::Tensor input = torch::randn({2, 8, 6, 6});
    input[1][3][2][4] = std::numeric_limits<float>::quiet_NaN();
    const torch::Tensor pooled = conv3x3ReluAvgPool2x2(input, torch::randn({8, 8, 3, 3}), torch::randn({8}));
    QVERIFY(pooled[1].isnan().any().item<bool>());
    QVERIFY(!pooled[0].isnan().any().item<bool>());
  }

  // ReLU's gradient at exactly zero is zero (threshold_backward): black images and a zero bias
  // make every convolution output 0, so no gradient reaches the bias or the weights.
  void reluPoolStageStopsTheGradientAtExactZeros() {
    const torch::Tensor input = torch::zeros({2, 8, 4, 4}).contiguous(torch::MemoryFormat::ChannelsLast);
    const torch::Tensor weight = torch::randn({8, 8, 3, 3}).requires_grad_(true);
    const torch::Tensor bias = torch::zeros({8}).requires_grad_(true);
    const torch::Tensor pooled = conv3x3ReluAvgPool2x2(input, weight, bias);
    QVERIFY(testing::graphHas(pooled, "WinogradConvReluPoolFunction"));
    QVERIFY(torch::equal(pooled, torch::zeros_like(pooled)));
    pooled.backward(torch::ones_like(pooled));
    QVERIFY(torch::equal(bias.grad(), torch::zeros_like(bias)));
    QVERIFY(torch::equal(weight.grad(), torch::zeros_like(weight)));
  }

  void reluPoolStageFallsBackToTheSeparateOps() {
    // Six channels: outside Winograd's vector blocks, so conv2d, ReLU and the pool run.
    torch::manual_seed(20);
    const torch::Tensor input = torch::rand({2, 6, 5, 5}), weight = torch::randn({6, 6, 3, 3});
    const torch::Tensor bias = torch::randn({6}).requires_grad_(true);
    const torch::Tensor pooled = conv3x3ReluAvgPool2x2(input, weight, bias);
    QVERIFY(!testing::graphHas(pooled, "WinogradConvReluPoolFunction"));
    QVERIFY(torch::equal(pooled, reluAvgPool2x2(conv3x3SamePadded(input, weight, bias))));
  }

  void theCnnTrainsThroughItOnTheCpu() {
    const auto model = makeModel("cnn", ModelInput{});
    const torch::Tensor logits = model->forward(torch::rand({4, 1, 28, 28}));
    QVERIFY(testing::graphHas(logits, "WinogradConvReluPoolFunction"));
    logits.sum().backward();
    for (const auto& parameter : model->parameters()) {
      QVERIFY(parameter.grad().defined() && parameter.grad().abs().sum().item<double>() > 0);
    }
  }
};

QTEST_APPLESS_MAIN(TestWinogradConv)
#include "TestWinogradConv.moc"
