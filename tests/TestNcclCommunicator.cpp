// SPDX-License-Identifier: GPL-3.0-or-later
// The NCCL communicator for several GPUs in one process, against the real NCCL and CUDA
// runtime of a CUDA build: what it does without a usable GPU (here and in CI), and the
// average across every visible GPU (on a GPU machine: scripts/gpu-check.sh runs it).
#include <torch/torch.h>

#include <QtTest>

#include "core/comm/NcclCommunicator.h"
#include "core/common/Error.h"
#include "core/devices/DeviceInventory.h"

class TestNcclCommunicator final : public QObject {
  Q_OBJECT

 private slots:
  void isBuiltWhereLibTorchHasCuda() {
#ifdef ENSEMBLELAB_WITH_CUDA
    QVERIFY2(ensemble::ncclAvailable(), "a CUDA build without NCCL: CMake should have found it or stopped");
#else
    QVERIFY(!ensemble::ncclAvailable());
    QVERIFY_THROWS_EXCEPTION(ensemble::DeviceError, ensemble::makeNcclCommunicator({0}, 5));
#endif
  }

  void aGpuThatIsNotThereFailsNamingTheCall() {
    if (!ensemble::ncclAvailable()) QSKIP("this build has no NCCL");
    const int missing = ensemble::cudaDeviceCount();  // one past the last GPU (0 without any)
    try {
      auto communicator = ensemble::makeNcclCommunicator({missing}, 5);
      QFAIL(qPrintable(QString("a communicator on cuda:%1 was made").arg(missing)));
    } catch (const ensemble::DeviceError& error) {
      const QString message = error.what();
      QVERIFY2(message.contains("NCCL error in ncclCommInitAll") || message.contains("CUDA error in "), error.what());
    }
  }

  void averagesAcrossEveryVisibleGpu() {
    if (!ensemble::ncclAvailable()) QSKIP("this build has no NCCL");
    const int gpus = ensemble::cudaDeviceCount();
    if (gpus == 0) QSKIP("no CUDA device");
    std::vector<int> devices(std::size_t(gpus), 0);
    for (int i = 0; i < gpus; ++i) devices[std::size_t(i)] = i;
    auto communicator = ensemble::makeNcclCommunicator(devices, 30);
    for (const auto dtype : {torch::kFloat32, torch::kFloat64}) {
      std::vector<torch::Tensor> perGpu;
      torch::Tensor expected = torch::zeros({4099}, torch::TensorOptions().dtype(dtype));
      for (int i = 0; i < gpus; ++i) {
        const torch::Tensor values = torch::arange(4099, torch::TensorOptions().dtype(dtype)) * double(i + 1);
        expected += values / double(gpus);
        perGpu.push_back(values.to(torch::Device(torch::kCUDA, i)));
      }
      communicator->allReduceMean(perGpu);
      for (int i = 0; i < gpus; ++i) {
        QCOMPARE(perGpu[std::size_t(i)].device().index(), i);
        const double error = (perGpu[std::size_t(i)].cpu() - expected).abs().max().item<double>();
        QVERIFY2(error < 1e-3, qPrintable(QString("cuda:%1 off by %2").arg(i).arg(error)));
      }
    }
    qInfo("NCCL all-reduce (average) across %d GPU(s) checked", gpus);
  }
};

QTEST_APPLESS_MAIN(TestNcclCommunicator)
#include "TestNcclCommunicator.moc"
