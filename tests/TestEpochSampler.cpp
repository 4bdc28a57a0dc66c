// SPDX-License-Identifier: GPL-3.0-or-later
// The epoch order: every sample once per epoch, reproducible from (seed, epoch), different
// across epochs and seeds, remainder dropped; on a device, a step's slice is the
// permutation's own positions.
#include <QtTest>
#include <set>

#include "core/common/Error.h"
#include "core/data/EpochSampler.h"
#include "core/train/EpochOrder.h"

#include <torch/torch.h>

using namespace ensemble;

class TestEpochSampler final : public QObject {
  Q_OBJECT

 private slots:
  void coversEverySampleOnce_data() {
    QTest::addColumn<int>("size");
    QTest::newRow("1") << 1;
    QTest::newRow("2") << 2;
    QTest::newRow("1000") << 1000;
    QTest::newRow("60000") << 60000;
  }
  void coversEverySampleOnce() {
    QFETCH(int, size);
    const EpochSampler sampler(7, size, 1);
    const std::vector<int64_t> order = sampler.permutation(3);
    QCOMPARE(int(order.size()), size);
    const std::set<int64_t> unique(order.begin(), order.end());
    QCOMPARE(int(unique.size()), size);
    QCOMPARE(*unique.begin(), int64_t(0));
    QCOMPARE(*unique.rbegin(), int64_t(size - 1));
  }

  void isDeterministicPerSeedAndEpoch() {
    const EpochSampler a(42, 500, 10), b(42, 500, 10), other(43, 500, 10);
    QCOMPARE(a.permutation(0), b.permutation(0));
    QCOMPARE(a.permutation(5), b.permutation(5));
    QVERIFY(a.permutation(0) != a.permutation(1));
    QVERIFY(a.permutation(0) != other.permutation(0));
  }

  void isActuallyShuffled() {
    const std::vector<int64_t> order = EpochSampler(0, 1000, 1).permutation(0);
    int fixedPoints = 0;
    for (int i = 0; i < 1000; ++i) fixedPoints += order[i] == i;
    QVERIFY2(fixedPoints < 10, "a random permutation has about one fixed point");
  }

  void dropsTheRemainder_data() {
    QTest::addColumn<int>("size");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("steps");
    QTest::newRow("60000/128") << 60000 << 128 << 468;
    QTest::newRow("exact") << 512 << 64 << 8;
    QTest::newRow("batch = size") << 100 << 100 << 1;
    QTest::newRow("batch 1") << 9 << 1 << 9;
  }
  void dropsTheRemainder() {
    QFETCH(int, size);
    QFETCH(int, batch);
    QFETCH(int, steps);
    QCOMPARE(EpochSampler(0, size, batch).stepsPerEpoch(), int64_t(steps));
  }

  void rejectsImpossibleBatches() {
    QVERIFY_THROWS_EXCEPTION(ConfigError, EpochSampler(0, 100, 0));
    QVERIFY_THROWS_EXCEPTION(ConfigError, EpochSampler(0, 100, 101));
  }

  void epochOrderSlicesThePermutation() {
    const std::vector<int64_t> order = EpochSampler(3, 1000, 1).permutation(2);
    const EpochOrder onDevices(order, {torch::kCPU, torch::kCPU});
    for (const int64_t begin : {int64_t(0), int64_t(64), int64_t(936)}) {
      const torch::Tensor slice = onDevices.slice(torch::kCPU, begin, 64);
      QCOMPARE(slice.size(0), int64_t(64));
      for (int64_t i = 0; i < 64; ++i) QCOMPARE(slice[i].item<int64_t>(), order[std::size_t(begin + i)]);
    }
  }
};

QTEST_APPLESS_MAIN(TestEpochSampler)
#include "TestEpochSampler.moc"
