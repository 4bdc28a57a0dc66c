// SPDX-License-Identifier: GPL-3.0-or-later
// Device specs as users type them, and the errors for the ones that cannot work.
#include <QtTest>

#include "core/common/Error.h"
#include "core/devices/DeviceInventory.h"
#include "core/devices/DeviceSpec.h"

using namespace ensemble;

class TestDeviceSpec final : public QObject {
  Q_OBJECT

 private slots:
  void parsesValidSpecs_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<QString>("expected");
    QTest::newRow("cpu") << "cpu" << 0 << "cpu";
    QTest::newRow("cpu*4") << "cpu*4" << 0 << "cpu,cpu,cpu,cpu";
    QTest::newRow("spaces") << " cpu * 2 " << 0 << "cpu,cpu";
    QTest::newRow("two gpus") << "cuda:0,cuda:1" << 2 << "cuda:0,cuda:1";
    QTest::newRow("cuda*2") << "cuda*2" << 3 << "cuda:0,cuda:1";
    QTest::newRow("cuda") << "cuda" << 1 << "cuda:0";
    QTest::newRow("all gpus") << "all" << 3 << "cuda:0,cuda:1,cuda:2";
    QTest::newRow("mixed") << "cpu,cuda:1" << 2 << "cpu,cuda:1";
    QTest::newRow("three members on gpu 1") << "cuda:1*3" << 2 << "cuda:1,cuda:1,cuda:1";
  }
  void parsesValidSpecs() {
    QFETCH(QString, spec);
    QFETCH(int, gpus);
    QFETCH(QString, expected);
    QStringList devices;
    for (const auto& d : parseDeviceSpec(spec.toStdString(), gpus)) devices << QString::fromStdString(d.str());
    QCOMPARE(devices.join(','), expected);
  }

  void rejectsBadSpecs_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<bool>("missingDevice");
    QTest::addColumn<QString>("expected");
    QTest::newRow("gpu that does not exist") << "cuda:0" << true << "does not exist";
    QTest::newRow("too many gpus") << "cuda*2" << true << "asks for 2 GPUs";
    QTest::newRow("members on a gpu that does not exist") << "cuda:0*4" << true << "cuda:0 does not exist";
    QTest::newRow("all without gpus") << "all" << true << "device 'all' means every GPU";
    QTest::newRow("bad index before the count") << "cuda:x*4" << false << "bad device index";
    QTest::newRow("unknown kind") << "tpu:0" << false << "unknown device";
    QTest::newRow("empty") << "" << false << "empty item";
    QTest::newRow("trailing comma") << "cpu," << false << "empty item";
    QTest::newRow("zero replicas") << "cpu*0" << false << "bad replica count";
    QTest::newRow("not a number") << "cpu*x" << false << "bad replica count";
    QTest::newRow("negative index") << "cuda:-1" << false << "bad device index";
    QTest::newRow("cpu with index") << "cpu:1" << false << "takes no index";
    QTest::newRow("too many cpu replicas") << "cpu*65" << false << "at most 64";
  }
  void rejectsBadSpecs() {
    QFETCH(QString, spec);
    QFETCH(bool, missingDevice);
    QFETCH(QString, expected);
    try {
      parseDeviceSpec(spec.toStdString(), 0, "CUDA says: no CUDA-capable device is detected");
      QFAIL("a bad device spec was accepted");
    } catch (const DeviceError& e) {
      QVERIFY2(missingDevice, e.what());
      QVERIFY2(QString(e.what()).contains(expected), e.what());
      // What the machine has, why it has no GPU, and what to use instead.
      QVERIFY2(QString(e.what()).contains("no usable CUDA device (CUDA says: no CUDA-capable device is detected); "
                                          "use cpu or cpu*N"), e.what());
    } catch (const ConfigError& e) {
      QVERIFY2(!missingDevice, e.what());
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  void formatsCanonically() {
    QCOMPARE(QString::fromStdString(formatDevices(parseDeviceSpec("cpu*3", 0))), QString("cpu*3"));
    QCOMPARE(QString::fromStdString(formatDevices(parseDeviceSpec("cuda*2", 2))), QString("cuda:0,cuda:1"));
    // Several members on one GPU read back as the spec that makes them.
    QCOMPARE(QString::fromStdString(formatDevices(parseDeviceSpec("cuda:1*4,cuda:0", 2))), QString("cuda:1*4,cuda:0"));
    QCOMPARE(int(parseDeviceSpec(formatDevices(parseDeviceSpec("cuda:0*8", 1)), 1).size()), 8);
  }

  void inventoryListsTheCpuFirst() {
    const auto devices = listDevices();
    QVERIFY(!devices.empty());
    QCOMPARE(QString::fromStdString(devices.front().id), QString("cpu"));
    QVERIFY(devices.front().memoryBytes > (1ull << 28));
    QCOMPARE(int(devices.size()), 1 + cudaDeviceCount());
  }
};

QTEST_APPLESS_MAIN(TestDeviceSpec)
#include "TestDeviceSpec.moc"
