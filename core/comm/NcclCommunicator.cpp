// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/NcclCommunicator.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"

#ifdef ENSEMBLELAB_WITH_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <string>
#include <thread>
#endif

namespace ensemble {

#ifdef ENSEMBLELAB_WITH_NCCL
namespace {

/// Every NCCL and CUDA call goes through these: a failure becomes a DeviceError with the
/// call, the file and the line (as torch's C10D_NCCL_CHECK does).
#define ENSEMBLELAB_NCCL_CHECK(call) checkNccl((call), #call, __FILE__, __LINE__)
#define ENSEMBLELAB_CUDA_CHECK(call) checkCuda((call), #call, __FILE__, __LINE__)

void checkNccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw DeviceError(std::string("NCCL error in ") + call + " (" + file + ":" + std::to_string(line) +
                    "): " + ncclGetErrorString(result) +
                    "; check that every selected GPU exists and is healthy (" + mention::listDevices() +
                    "), or set NCCL_DEBUG=INFO for details");
}

void checkCuda(cudaError_t result, const char* call, const char* file, int line) {
  if (result == cudaSuccess) return;
  throw DeviceError(std::string("CUDA error in ") + call + " (" + file + ":" + std::to_string(line) +
                    "): " + cudaGetErrorString(result));
}

ncclDataType_t ncclTypeOf(const at::Tensor& tensor) {
  switch (tensor.scalar_type()) {
    case at::kFloat: return ncclFloat32;
    case at::kDouble: return ncclFloat64;
    case at::kHalf: return ncclFloat16;
    case at::kLong: return ncclInt64;
    default:
      throw DeviceError(std::string("NCCL cannot average tensors of type ") + c10::toString(tensor.scalar_type()));
  }
}

/// The communicators of one ncclCommInitAll; RAII, not copyable. Destroyed normally, or
/// aborted after a failure (a destroy could wait on a collective that will never end).
class NcclComms final {
 public:
  explicit NcclComms(const std::vector<int>& devices) : m_comms(devices.size(), nullptr) {
    ENSEMBLELAB_NCCL_CHECK(ncclCommInitAll(m_comms.data(), int(devices.size()), devices.data()));
  }
  ~NcclComms() {
    for (ncclComm_t comm : m_comms) {
      if (!comm) continue;
      if (m_broken) {
        ncclCommAbort(comm);
      } else {
        ncclCommDestroy(comm);
      }
    }
  }
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  ncclComm_t operator[](std::size_t i) const { return m_comms[i]; }
  std::size_t size() const { return m_comms.size(); }
  void markBroken() { m_broken = true; }

 private:
  std::vector<ncclComm_t> m_comms;
  bool m_broken = false;
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const std::vector<int>& devices, double timeoutSeconds)
      : m_devices(devices), m_timeout(timeoutSeconds), m_comms(devices) {}

  void allReduceMean(std::vector<at::Tensor>& perReplica) override {
    TORCH_CHECK(perReplica.size() == m_comms.size(), "NCCL communicator expected ", m_comms.size(),
                " tensors, got ", perReplica.size());
    if (m_failed) throw DeviceError("the NCCL communicators were aborted after an earlier failure");
    // Legacy default stream (0): the engine's kernels run there, so NCCL's work is ordered
    // after the probabilities or gradients it reads, and before anything that reads back.
    ENSEMBLELAB_NCCL_CHECK(ncclGroupStart());
    for (std::size_t i = 0; i < perReplica.size(); ++i) {
      at::Tensor& tensor = perReplica[i];
      TORCH_CHECK(tensor.is_cuda() && tensor.device().index() == m_devices[i] && tensor.is_contiguous(),
                  "replica ", i, " must hand a contiguous tensor on cuda:", m_devices[i]);
      ENSEMBLELAB_NCCL_CHECK(ncclAllReduce(tensor.data_ptr(), tensor.data_ptr(), std::size_t(tensor.numel()),
                                           ncclTypeOf(tensor), ncclAvg, m_comms[i], nullptr));
    }
    ENSEMBLELAB_NCCL_CHECK(ncclGroupEnd());
    waitOrAbort();
  }

  std::vector<at::Tensor> allGather(const std::vector<at::Tensor>& perReplica) override {
    std::vector<at::Tensor> gathered;
    for (const auto& tensor : perReplica) gathered.push_back(tensor.cpu());
    return gathered;
  }

  int worldReplicas() const override { return int(m_devices.size()); }
  std::string name() const override { return "nccl"; }

 private:
  /// Waits for the collectives, watching for NCCL's asynchronous errors and the timeout.
  void waitOrAbort() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(m_timeout);
    for (std::size_t i = 0; i < m_devices.size(); ++i) {
      for (;;) {
        ENSEMBLELAB_CUDA_CHECK(cudaSetDevice(m_devices[i]));
        const cudaError_t state = cudaStreamQuery(nullptr);
        if (state == cudaSuccess) break;
        if (state != cudaErrorNotReady) fail(std::string("CUDA reported ") + cudaGetErrorString(state));
        ncclResult_t asyncError = ncclSuccess;
        ENSEMBLELAB_NCCL_CHECK(ncclCommGetAsyncError(m_comms[i], &asyncError));
        if (asyncError != ncclSuccess) fail(std::string("NCCL reported ") + ncclGetErrorString(asyncError));
        if (std::chrono::steady_clock::now() > deadline) {
          fail("an all-reduce on cuda:" + std::to_string(m_devices[i]) + " did not finish within " +
               std::to_string(int(m_timeout)) + " s");
        }
        std::this_thread::yield();
      }
    }
  }

  [[noreturn]] void fail(const std::string& why) {
    m_failed = true;
    m_comms.markBroken();
    throw DeviceError(why + "; the NCCL communicators were aborted and the run stops here (its last "
                            "checkpoint is kept). Check the GPUs with nvidia-smi, or train on fewer devices");
  }

  std::vector<int> m_devices;
  double m_timeout;
  NcclComms m_comms;
  bool m_failed = false;
};

}  // namespace

bool ncclAvailable() { return true; }

std::unique_ptr<Communicator> makeNcclCommunicator(const std::vector<int>& deviceIndices, double timeoutSeconds) {
  return std::make_unique<NcclCommunicator>(deviceIndices, timeoutSeconds);
}

#else

bool ncclAvailable() { return false; }

std::unique_ptr<Communicator> makeNcclCommunicator(const std::vector<int>&, double) {
  throw DeviceError("this build of EnsembleLab has no NCCL; the replicas are averaged through the host instead");
}

#endif

}  // namespace ensemble
