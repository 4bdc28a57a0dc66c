// SPDX-License-Identifier: GPL-3.0-or-later
// Our SGD with momentum and weight decay against its rule written out element by element (bit
// for bit: the CPU's one-pass loop rounds each product and sum on its own) and against
// LibTorch's torch::optim::SGD, the rule PyTorch users train with (to float rounding: LibTorch
// fuses the parameter's multiply-add), on the one-pass loop and on the multi-tensor path the
// GPU takes; weight decay shrinks weights; a parameter without a gradient is left alone; clearing
// the gradients leaves none, so the next backward's gradient is not added to old ones.
#include <QtTest>
#include <torch/torch.h>

#include "core/train/SgdMomentum.h"

using namespace ensemble;

namespace {

std::vector<torch::Tensor> someParameters(uint64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({32, 1, 3, 3}), torch::randn({32}), torch::randn({256, 3136}), torch::randn({10})};
}

std::vector<torch::Tensor> trainable(const std::vector<torch::Tensor>& values) {
  std::vector<torch::Tensor> parameters;
  for (const auto& v : values) parameters.push_back(v.clone().set_requires_grad(true));
  return parameters;
}

void setGradients(const std::vector<torch::Tensor>& parameters, int step) {
  torch::manual_seed(100 + uint64_t(step));
  for (const auto& p : parameters) p.mutable_grad() = torch::randn_like(p);
}

}  // namespace

class TestSgdMomentum final : public QObject {
  Q_OBJECT

 private slots:
  void followsItsRuleBitForBitAndTorchSgdToRounding_data() {
    QTest::addColumn<double>("weightDecay");
    QTest::addColumn<bool>("onePass");  // float32 on the CPU: the one-pass loop; float64: the foreach path GPUs take
    // A rate set before each step (a schedule's): on the multi-tensor path it is read from
    // the tensor setLearningRate writes, as a CUDA graph's replay reads it.
    QTest::addColumn<bool>("scheduled");
    QTest::newRow("no weight decay") << 0.0 << true << false;
    QTest::newRow("weight decay") << 0.01 << true << false;
    QTest::newRow("weight decay, multi-tensor path") << 0.01 << false << false;
    QTest::newRow("a rate for each step") << 0.0 << true << true;
    QTest::newRow("a rate for each step, multi-tensor path") << 0.01 << false << true;
  }

  void followsItsRuleBitForBitAndTorchSgdToRounding() {
    QFETCH(double, weightDecay);
    QFETCH(bool, onePass);
    QFETCH(bool, scheduled);
    const double momentum = 0.9;
    std::vector<torch::Tensor> start = someParameters(1);
    if (!onePass) {
      for (auto& p : start) p = p.to(torch::kFloat64);
    }
    std::vector<torch::Tensor> ours = trainable(start), theirs = trainable(start);
    // The rule by hand, one element at a time, each operation rounded to float.
    std::vector<std::vector<float>> expected, velocity;
    for (const auto& p : start) {
      const torch::Tensor flat = p.to(torch::kFloat32).contiguous().view(-1);
      expected.emplace_back(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
      velocity.emplace_back(std::size_t(flat.numel()), 0.f);
    }
    SgdMomentum sgd(ours, 0.05, momentum, weightDecay);
    torch::optim::SGD reference(theirs, torch::optim::SGDOptions(0.05).momentum(momentum).weight_decay(weightDecay));
    for (int step = 0; step < 5; ++step) {
      // Scheduled: a warmup's climb, 0.02 to 0.1; else the rate the optimizer was made with.
      const double lr = scheduled ? 0.02 * (step + 1) : 0.05;
      if (scheduled) {
        sgd.setLearningRate(lr);
        static_cast<torch::optim::SGDOptions&>(reference.param_groups()[0].options()).lr(lr);
      }
      setGradients(ours, step);
      setGradients(theirs, step);
      sgd.step();
      reference.step();
      for (std::size_t i = 0; i < ours.size(); ++i) {
        const torch::Tensor grad = ours[i].grad().to(torch::kFloat32).contiguous().view(-1);
        for (std::size_t e = 0; e < expected[i].size(); ++e) {
          float g = grad.data_ptr<float>()[e];
          if (weightDecay != 0) g = g + float(weightDecay) * expected[i][e];
          const float v = float(momentum) * velocity[i][e] + g;
          velocity[i][e] = v;
          expected[i][e] = expected[i][e] + float(-lr) * v;
        }
      }
    }
    for (std::size_t i = 0; i < ours.size(); ++i) {
      if (onePass) {
        const torch::Tensor rule = torch::from_blob(expected[i].data(), ours[i].sizes(), torch::kFloat32);
        QVERIFY2(torch::equal(ours[i], rule), qPrintable(QString("parameter %1 differs from the rule").arg(i)));
      }
      QVERIFY2(torch::allclose(ours[i], theirs[i], 1e-6, 1e-6), qPrintable(QString("parameter %1 differs from torch").arg(i)));
      QVERIFY2(!torch::equal(ours[i], start[i]), "the step changed nothing");
    }
  }

  // Weight decay pulls each weight towards zero: with gradients of zero, momentum 0 and decay
  // d, one step takes w to w * (1 - lr * d), on both paths; no decay leaves w where it is.
  void decayShrinksWeightsWhenTheGradientIsZero() {
    for (const auto dtype : {torch::kFloat32, torch::kFloat64}) {
      const torch::Tensor weight = torch::full({1000}, 2.0, torch::TensorOptions().dtype(dtype)).set_requires_grad(true);
      SgdMomentum sgd({weight}, 0.1, 0.0, 0.5);
      weight.mutable_grad() = torch::zeros_like(weight);
      sgd.step();
      QVERIFY2(torch::allclose(weight, torch::full_like(weight, 2.0 * (1 - 0.1 * 0.5))),
               qPrintable(QString::number(weight[0].item<double>())));
      const torch::Tensor kept = torch::full({1000}, 2.0, torch::TensorOptions().dtype(dtype)).set_requires_grad(true);
      SgdMomentum none({kept}, 0.1, 0.0);
      kept.mutable_grad() = torch::zeros_like(kept);
      none.step();
      QVERIFY(torch::equal(kept, torch::full_like(kept, 2.0)));
    }
  }

  void skipsParametersWithoutGradient() {
    std::vector<torch::Tensor> parameters = trainable(someParameters(2));
    const torch::Tensor untouched = parameters[1].detach().clone();
    SgdMomentum sgd(parameters, 0.1, 0.5);
    setGradients(parameters, 0);
    parameters[1].mutable_grad() = torch::Tensor();
    sgd.step();
    QVERIFY(torch::equal(parameters[1], untouched));
    QVERIFY(!torch::equal(sgd.momentumBuffers()[0], torch::zeros_like(parameters[0])));
    QVERIFY(torch::equal(sgd.momentumBuffers()[1], torch::zeros_like(parameters[1])));
  }

  void clearedGradientsAreNotAddedToTheNextOnes() {
    std::vector<torch::Tensor> parameters = trainable(someParameters(3));
    SgdMomentum sgd(parameters, 0.1, 0.5);
    setGradients(parameters, 0);
    sgd.clearGradients();
    for (const auto& p : parameters) QVERIFY(!p.grad().defined());
    (parameters[1] * 3).sum().backward();
    QVERIFY(torch::equal(parameters[1].grad(), torch::full_like(parameters[1], 3)));
  }
};

QTEST_GUILESS_MAIN(TestSgdMomentum)
#include "TestSgdMomentum.moc"
