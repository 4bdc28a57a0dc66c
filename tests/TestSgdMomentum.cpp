// SPDX-License-Identifier: GPL-3.0-or-later
// Our SGD with momentum (multi-tensor kernels) against LibTorch's torch::optim::SGD, the
// rule PyTorch users train with: the same parameters after several steps, bit for bit on
// the CPU; a parameter without a gradient is left alone; zeroGrad zeroes every gradient.
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
  void matchesTorchSgdBitForBit() {
    const double lr = 0.05, momentum = 0.9;
    const std::vector<torch::Tensor> start = someParameters(1);
    std::vector<torch::Tensor> ours = trainable(start), theirs = trainable(start);
    SgdMomentum sgd(ours, lr, momentum);
    torch::optim::SGD reference(theirs, torch::optim::SGDOptions(lr).momentum(momentum));
    for (int step = 0; step < 5; ++step) {
      setGradients(ours, step);
      setGradients(theirs, step);
      sgd.step();
      reference.step();
    }
    for (std::size_t i = 0; i < ours.size(); ++i) {
      QVERIFY2(torch::equal(ours[i], theirs[i]), qPrintable(QString("parameter %1 differs").arg(i)));
      QVERIFY2(!torch::equal(ours[i], start[i]), "the step changed nothing");
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

  void zeroGradZeroesEveryGradient() {
    std::vector<torch::Tensor> parameters = trainable(someParameters(3));
    SgdMomentum sgd(parameters, 0.1, 0.5);
    setGradients(parameters, 0);
    sgd.zeroGrad();
    for (const auto& p : parameters) QVERIFY(torch::equal(p.grad(), torch::zeros_like(p)));
  }
};

QTEST_GUILESS_MAIN(TestSgdMomentum)
#include "TestSgdMomentum.moc"
