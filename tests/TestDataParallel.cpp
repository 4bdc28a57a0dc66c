// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel on K CPU replicas at global batch B tracks one replica at batch B.
#include <QTemporaryDir>
#include <QtTest>

#include "core/comm/LocalCommunicator.h"
#include "core/common/Error.h"
#include "core/config/ExperimentConfig.h"
#include "core/data/Dataset.h"
#include "core/train/Evaluator.h"
#include "core/train/Replica.h"
#include "core/train/ReplicaWorkers.h"
#include "core/train/SplitOnDevices.h"
#include "core/train/Trainer.h"
#include "tests/CheckpointWeights.h"
#include "tests/TestSupport.h"

using namespace ensemble;

class TestDataParallel final : public QObject {
  Q_OBJECT

  std::vector<TensorDict> train(const std::string& mode, const std::string& devices, int64_t limit) {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig(mode, devices);
    config.trainLimit = limit;
    auto trainer = Trainer::create(config, dir.path().toStdString(), testing::syntheticData());
    const RunFinishedEvent finished = trainer->run(nullptr, nullptr);
    if (finished.status != RunStatus::Completed) qWarning("%s", finished.message.c_str());
    return testing::latestWeights(dir.path().toStdString());
  }

 private slots:
  void matchesOneReplicaAtTheSameGlobalBatch_data() {
    QTest::addColumn<QString>("devices");
    QTest::newRow("cpu*2") << "cpu*2";
    QTest::newRow("cpu*4") << "cpu*4";
  }
  void matchesOneReplicaAtTheSameGlobalBatch() {
    QFETCH(QString, devices);
    const int64_t steps = 8, batch = 64;
    const auto single = train("single", "cpu", steps * batch);
    const auto parallel = train("data-parallel", devices.toStdString(), steps * batch);
    QCOMPARE(int(parallel.size()), 1);
    const double difference = testing::maxDifference(single, parallel);
    QVERIFY2(difference < 1e-5, qPrintable(QString::number(difference)));
    // Not vacuous: training moved the weights far more than the tolerance.
    const auto initial = train("single", "cpu", batch);  // one step
    QVERIFY(testing::maxDifference(single, initial) > 1e-3);
  }

  // The replicas of a data-parallel model evaluate a part of the test set each: the result
  // must be the bits of replica 0 evaluating all of it, with replica 0's BatchNorm
  // statistics (each replica tracks its own shards'; replica 0's are the checkpoint's).
  void evaluationOnEveryReplicaIsReplicaZeros_data() {
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("replicas");
    QTest::addColumn<int>("images");
    QTest::newRow("cnn, 2 replicas") << "cnn" << 2 << 70;
    QTest::newRow("cnn, 3 replicas, 10 batches") << "cnn" << 3 << 70;
    QTest::newRow("cnn, more replicas than batches") << "cnn" << 4 << 20;
    QTest::newRow("resnet18, 3 replicas") << "resnet18" << 3 << 40;
  }
  void evaluationOnEveryReplicaIsReplicaZeros() {
    QFETCH(QString, model);
    QFETCH(int, replicas);
    QFETCH(int, images);
    const auto data = testing::syntheticData();
    const Dataset test = data->test.firstSamples(images);
    QCOMPARE(test.size(), int64_t(images));
    const ModelInput input{1, test.height(), test.width(), data->train.classes};
    std::vector<Replica> copies;
    for (int r = 0; r < replicas; ++r) {  // one seed: the same parameters, as data-parallel keeps them
      copies.push_back(makeReplica(model.toStdString(), input, DeviceRef{}, 5, 0.1, 0.9));
    }
    {
      torch::NoGradGuard noGrad;
      torch::manual_seed(11);
      for (int r = 0; r < replicas; ++r) {  // running statistics of their own, as after training
        for (const auto& buffer : copies[r].model->named_buffers()) {
          const QString name = QString::fromStdString(buffer.key());
          torch::Tensor statistic = buffer.value();
          if (name.endsWith("running_mean")) {
            statistic.add_(0.2 * torch::randn_like(statistic));
          } else if (name.endsWith("running_var")) {
            statistic.mul_(torch::exp(0.3 * torch::randn_like(statistic)));
          }
        }
      }
    }
    const int64_t batchSize = 7;  // the last batch short
    const torch::Tensor alone = predictProbabilities(*copies.front().model, test.images, batchSize);
    const torch::Tensor secondsOwn = predictProbabilities(*copies[1].model, test.images, batchSize);
    ExperimentConfig config = testing::smallConfig("data-parallel", "cpu*" + std::to_string(replicas));
    SplitOnDevices split(test);
    ReplicaWorkers workers(2);
    LocalCommunicator oneProcess(replicas);
    const torch::Tensor shared = predictOneModel(config, copies, split, batchSize, workers, oneProcess);
    QCOMPARE(shared.sizes(), alone.sizes());
    QVERIFY2(torch::equal(shared, alone),
             qPrintable(QString("differs by %1").arg((shared - alone).abs().max().item<double>())));
    // Not vacuous for the statistics: replica 1's own gave other probabilities.
    if (!copies.front().model->buffers().empty()) QVERIFY((secondsOwn - alone).abs().max().item<double>() > 1e-4);
  }

  void unevenSplitIsRefused() {
    ExperimentConfig config = testing::smallConfig("data-parallel", "cpu*3");
    try {
      Trainer::create(config, "/tmp/unused", testing::syntheticData());
      QFAIL("batch 64 on 3 replicas was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("not a multiple of the 3 replicas; use batch size 63 or 66"), e.what());
    }
    // A batch smaller than the replicas: the one size that gives each an image.
    config = testing::smallConfig("data-parallel", "cpu*2");
    config.batchSize = 1;
    try {
      Trainer::create(config, "/tmp/unused", testing::syntheticData());
      QFAIL("batch 1 on 2 replicas was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("use batch size 2, or a number of replicas that divides 1"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestDataParallel)
#include "TestDataParallel.moc"
