// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel on K CPU replicas at global batch B tracks one replica at batch B.
#include <QTemporaryDir>
#include <QtTest>

#include "core/common/Error.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
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

  void unevenSplitIsRefused() {
    ExperimentConfig config = testing::smallConfig("data-parallel", "cpu*3");
    try {
      Trainer::create(config, "/tmp/unused", testing::syntheticData());
      QFAIL("batch 64 on 3 replicas was accepted");
    } catch (const ConfigError& e) {
      QVERIFY2(QString(e.what()).contains("not a multiple of the 3 replicas"), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestDataParallel)
#include "TestDataParallel.moc"
