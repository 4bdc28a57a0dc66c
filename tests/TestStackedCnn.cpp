// SPDX-License-Identifier: GPL-3.0-or-later
// Ensemble members stacked into one network (member form "stacked") train like separate
// members with the same seeds and batches, and keep working with checkpoints and resume.
#include <torch/torch.h>

#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/common/SeedSequence.h"
#include "core/data/Dataset.h"
#include "core/io/RunDirectory.h"
#include "core/models/StackedCnn.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Evaluator.h"
#include "core/train/Replica.h"
#include "core/train/RunSetup.h"
#include "core/train/RunControl.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingObserver.h"
#include "tests/CheckpointWeights.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

constexpr int kMembers = 3;

std::vector<Replica> membersFromSeeds(const ModelInput& input) {
  std::vector<Replica> members;
  for (int m = 0; m < kMembers; ++m) {
    members.push_back(makeReplica("cnn", input, DeviceRef{}, deriveSeed(7, SeedStream::Member, m), 0.1, 0.9));
  }
  return members;
}

std::vector<TensorDict> weightsOf(const std::vector<Replica>& members) {
  std::vector<TensorDict> weights;
  for (const Replica& member : members) weights.push_back(member.weights());
  return weights;
}

ExperimentConfig stackedConfig() {
  ExperimentConfig config = testing::smallConfig("ensemble", "cpu*3");
  config.memberForm = MemberForm::Stacked;
  config.epochs = 2;
  config.trainLimit = 640;  // 10 steps per epoch
  config.checkpointEvery = 4;
  return config;
}

}  // namespace

class TestStackedCnn final : public QObject {
  Q_OBJECT

 private slots:
  void stackedStepsMatchSeparateMembers() {
    ModelInput input;  // 1 channel, 10 classes
    input.height = 20;
    input.width = 24;  // not square: the dense layer's feature order must still match
    std::vector<Replica> separate = membersFromSeeds(input);
    std::vector<Replica> stackedMembers = membersFromSeeds(input);
    std::vector<std::shared_ptr<ClassifierImpl>> models;
    std::vector<SgdMomentum*> optimizers;
    for (Replica& member : stackedMembers) {
      models.push_back(member.model);
      optimizers.push_back(member.optimizer.get());
    }
    StackedCnn stacked(models);
    SgdMomentum stackedOptimizer(stacked->parameters(), 0.1, 0.9);
    SgdMomentum::shareStackedBuffers(stackedOptimizer, optimizers);
    QVERIFY(testing::identical(weightsOf(separate), weightsOf(stackedMembers)));  // stacking changes nothing

    torch::manual_seed(11);
    for (int step = 0; step < 6; ++step) {
      const torch::Tensor images = torch::rand({16, 1, input.height, input.width});
      const torch::Tensor labels = torch::randint(0, 10, {16}, torch::kInt64);
      const torch::Tensor logits = stacked->forward(images);
      QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{kMembers, 16, 10}));
      for (int m = 0; m < kMembers; ++m) {
        Replica& member = separate[std::size_t(m)];
        member.optimizer->clearGradients();
        const torch::Tensor own = member.model->forward(images);
        QVERIFY2(torch::allclose(own, logits[m].detach(), 1e-4, 1e-5), qPrintable(QString("step %1 member %2").arg(step).arg(m)));
        torch::nn::functional::cross_entropy(own, labels).backward();
        member.optimizer->step();
      }
      stackedOptimizer.clearGradients();
      torch::Tensor loss;
      for (int m = 0; m < kMembers; ++m) {
        const torch::Tensor memberLoss = torch::nn::functional::cross_entropy(logits[m], labels);
        loss = loss.defined() ? loss + memberLoss : memberLoss;
      }
      loss.backward();
      stackedOptimizer.step();
    }
    // Six momentum steps later the members (views of the stacks) match their separate twins
    // to float rounding, and still differ from each other.
    const double difference = testing::maxDifference(weightsOf(separate), weightsOf(stackedMembers));
    QVERIFY2(difference < 1e-5, qPrintable(QString::number(difference)));
    const std::vector<TensorDict> before = weightsOf(membersFromSeeds(input));
    QVERIFY(testing::maxDifference(before, weightsOf(stackedMembers)) > 1e-3);  // they did train
    // The members' momentum buffers are the stacked optimizer's.
    for (int m = 0; m < kMembers; ++m) {
      const TensorDict own = separate[std::size_t(m)].optimizerState();
      const TensorDict shared = stackedMembers[std::size_t(m)].optimizerState();
      QVERIFY(testing::maxDifference({own}, {shared}) < 1e-5);
      QVERIFY(shared.at("conv1.weight").abs().sum().item<double>() > 0);
    }
  }

  void stackedRunMatchesSeparateRun_data() {
    QTest::addColumn<double>("weightDecay");
    QTest::addColumn<double>("tolerance");
    QTest::addColumn<LrSchedule>("schedule");
    QTest::newRow("no weight decay") << 0.0 << 1e-4 << LrSchedule::Constant;
    // The stacked step's own optimizer decays too. The two forms' rounding drifts further
    // apart with decay: 1.24e-4 with the wheel's LibTorch 2.15 (CI's CUDA build), while a
    // stacked optimizer without the decay is 0.034 away.
    QTest::newRow("weight decay") << 0.05 << 1e-3 << LrSchedule::Constant;
    // The rate of each step reaches the optimizer that steps: the stacked network's.
    QTest::newRow("step decay") << 0.0 << 1e-4 << LrSchedule::Step;
  }

  void stackedRunMatchesSeparateRun() {
    QFETCH(double, weightDecay);
    QFETCH(double, tolerance);
    QFETCH(LrSchedule, schedule);
    QTemporaryDir separateDir, stackedDir;
    ExperimentConfig config = stackedConfig();
    config.epochs = 1;
    config.weightDecay = weightDecay;
    config.lrSchedule = schedule;
    REQUIRE_COMPLETED(
        Trainer::create(config, stackedDir.path().toStdString(), testing::syntheticData())
            ->run(nullptr, nullptr));
    config.memberForm = MemberForm::Separate;
    REQUIRE_COMPLETED(
        Trainer::create(config, separateDir.path().toStdString(), testing::syntheticData())
            ->run(nullptr, nullptr));
    const auto stackedWeights = testing::latestWeights(stackedDir.path().toStdString());
    const auto separateWeights = testing::latestWeights(separateDir.path().toStdString());
    QCOMPARE(int(stackedWeights.size()), kMembers);
    const double difference = testing::maxDifference(stackedWeights, separateWeights);
    QVERIFY2(difference < tolerance, qPrintable(QString::number(difference)));
    QVERIFY(!testing::identical({stackedWeights[0]}, {stackedWeights[1]}));
    const auto accuracy = [](const QTemporaryDir& dir) {
      return RunDirectory::readJson(RunDirectory(dir.path().toStdString()).summaryPath())
          .at("ensemble").at("test_accuracy").get<double>();
    };
    QVERIFY(std::abs(accuracy(stackedDir) - accuracy(separateDir)) < 0.01);
  }

  void stackedRunResumesExactly() {
    QTemporaryDir reference, resumed;
    REQUIRE_COMPLETED(
        Trainer::create(stackedConfig(), reference.path().toStdString(), testing::syntheticData())
            ->run(nullptr, nullptr));
    RunControl control;
    testing::StopAtStep stopper(control, 13);
    EXPECT_STATUS(
        Trainer::create(stackedConfig(), resumed.path().toStdString(), testing::syntheticData())
            ->run(&stopper, &control),
        RunStatus::Stopped);
    auto trainer = Trainer::open(resumed.path().toStdString(), testing::syntheticData());
    REQUIRE_COMPLETED(trainer->run(nullptr, nullptr));
    // The checkpoint restored weights and momentum through the members' views.
    QVERIFY(testing::identical(testing::latestWeights(reference.path().toStdString()),
                               testing::latestWeights(resumed.path().toStdString())));
  }

  // Members that train stacked are evaluated as one network on a GPU (a snapshot of their
  // stacked parameters): each member's probabilities are its own, to float rounding, and the
  // members keep their parameters (a StackedCnn would take them over from the training
  // step's stacks). The arithmetic is the same on the CPU, where it is checked.
  void stackedEvaluationMatchesMemberByMember() {
    const auto data = testing::syntheticData();
    const torch::Tensor images = data->test.images;
    std::vector<Replica> members = membersFromSeeds(modelInputOf(data->train));
    std::vector<void*> storage;
    for (const Replica& member : members) storage.push_back(member.model->parameters().front().data_ptr());
    const int64_t batchSize = 7;  // several batches, the last one short
    const std::vector<torch::Tensor> stacked = predictStackedProbabilities(members, images, batchSize);
    QCOMPARE(int(stacked.size()), kMembers);
    for (int m = 0; m < kMembers; ++m) {
      const torch::Tensor own = predictProbabilities(*members[m].model, images, batchSize);
      QCOMPARE(stacked[m].sizes(), own.sizes());
      const double difference = (stacked[m] - own).abs().max().item<double>();
      QVERIFY2(difference < 1e-5, qPrintable(QString("member %1 differs by %2").arg(m).arg(difference)));
      QCOMPARE(members[m].model->parameters().front().data_ptr(), storage[m]);
    }
    QVERIFY((stacked[0] - stacked[1]).abs().max().item<double>() > 1e-3);  // the members differ
  }

  void stackedNeedsAnEnsembleOfCnns() {
    ExperimentConfig config = stackedConfig();
    config.mode = TrainingMode::DataParallel;
    QVERIFY_THROWS_EXCEPTION(ConfigError, config.validate());
    config = stackedConfig();
    config.model = ModelKind::ResNet18;
    QVERIFY_THROWS_EXCEPTION(ConfigError, config.validate());
    QVERIFY_THROWS_EXCEPTION(ConfigError, parseMemberForm("stacks"));  // config.json or --member-form
    QVERIFY(!canStack("lenet"));
  }
};

QTEST_APPLESS_MAIN(TestStackedCnn)
#include "TestStackedCnn.moc"
