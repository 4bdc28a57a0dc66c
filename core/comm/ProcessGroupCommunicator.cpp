// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/ProcessGroupCommunicator.h"

#include <torch/torch.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"

#ifdef ENSEMBLELAB_WITH_C10D
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/version.h>
#ifdef ENSEMBLELAB_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef ENSEMBLELAB_WITH_C10D_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "core/comm/Rendezvous.h"
#include "core/comm/RouteToHost.h"
#include "core/comm/WatchedWait.h"
#endif

namespace ensemble {
namespace {

bool ncclGroupBuilt() {
#ifdef ENSEMBLELAB_WITH_C10D_NCCL
  return true;
#else
  return false;
#endif
}

bool glooGroupBuilt() {
#ifdef ENSEMBLELAB_WITH_GLOO
  return true;
#else
  return false;
#endif
}

}  // namespace

std::string chooseBackend(const std::string& requested, const std::string& device) {
  const bool gpu = device.rfind("cuda", 0) == 0;
  if (requested.empty()) return gpu && ncclGroupBuilt() ? "nccl" : "gloo";
  if (requested == "gloo" && !glooGroupBuilt()) {
    throw ConfigError("this build of EnsembleLab has no Gloo process group (Gloo's headers, Debian's libgloo-dev, "
                      "were missing when it was built), so " + device + " ranks cannot average across processes; " +
                      (gpu ? std::string("use --backend nccl, or ") : std::string()) + "rebuild with libgloo-dev installed");
  }
  if (requested == "nccl" && !ncclGroupBuilt()) {
#ifdef ENSEMBLELAB_WITH_CUDA
    throw ConfigError("this build of EnsembleLab has no NCCL process group (NCCL or c10d's ProcessGroupNCCL was "
                      "missing when it was built); use --backend gloo, or rebuild with NCCL (docs/GPU.md)");
#else
    throw ConfigError("this build's LibTorch has no CUDA, so it has no NCCL process group; use --backend gloo, "
                      "or the CUDA build (scripts/build-cuda.sh, docs/GPU.md) on a machine with GPUs");
#endif
  }
  if (requested == "nccl" && !gpu) {
    throw ConfigError("--backend nccl averages on GPUs, but this process trains on " + device +
                      "; use --backend gloo for CPU replicas, or --devices cuda:N");
  }
  return requested;
}

#ifdef ENSEMBLELAB_WITH_C10D
namespace {

// What the backends derive from: c10d::ProcessGroup in LibTorch 1.x, c10d::Backend in 2.x.
#if TORCH_VERSION_MAJOR >= 2
using GroupBackend = c10d::Backend;
#else
using GroupBackend = c10d::ProcessGroup;
#endif

#ifdef ENSEMBLELAB_WITH_GLOO
bool isLoopback(const std::string& host) {
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

/// Gloo's transport: on loopback for a single-host run; GLOO_SOCKET_IFNAME (torch's own
/// variable) for a chosen interface; otherwise this host's address on the route to rank 0
/// (RouteToHost.h says why not torch's default, the address of this host's name).
std::shared_ptr<::gloo::transport::Device> glooDevice(const ProcessGroupOptions& options) {
  if (const char* interface = environment::read(environment::kGlooSocketInterface)) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  }
  if (isLoopback(options.masterAddr)) return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDeviceForHostname(localAddressTowards(options.masterAddr));
}
#endif

std::string absolutePath(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.lexically_normal().string();
}

/// How often a waiting Gloo collective checks whether a peer is gone.
constexpr std::chrono::milliseconds kWatchSlice{250};

class ProcessGroupCommunicator final : public Communicator {
 public:
  /// `backend` is "gloo" (collectives on CPU tensors) or "nccl" (on `device`, this
  /// process's first GPU).
  ProcessGroupCommunicator(const ProcessGroupOptions& options, const std::string& backend, int localReplicas,
                           const torch::Device& device, const std::string& deviceLocation, const nlohmann::json& config,
                           const std::string& runFolder)
      : m_options(options), m_backend(backend), m_localReplicas(localReplicas),
        m_device(backend == "nccl" ? device : torch::Device(torch::kCPU)) {
    // NCCL ranks say which GPU they use, so two on one GPU are refused by name at the start.
    const std::string gpu = backend == "nccl" ? deviceLocation : "";
    m_rendezvous = std::make_unique<Rendezvous>(
        options, nlohmann::json{{"replicas", localReplicas},
                                {"backend", backend},
                                {"gpu", gpu},
                                {"config", config},
                                // Absolute: the other ranks print it, from other working folders.
                                {"run_folder", absolutePath(runFolder)}});
    const auto timeout = std::chrono::milliseconds(int64_t(options.timeoutSeconds * 1000));
    auto store = c10::make_intrusive<c10d::PrefixStore>(backend, m_rendezvous->store());
    if (backend == "gloo") {
#ifdef ENSEMBLELAB_WITH_GLOO
      auto glooOptions = c10d::ProcessGroupGloo::Options::create(timeout);
      glooOptions->devices.push_back(glooDevice(options));
      collective("connect the Gloo process group", [&] {
        m_group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, options.rank, options.worldSize, glooOptions);
      });
#endif  // chooseBackend refuses gloo where it is not built
    } else {
      connectNccl(store, timeout);
    }
  }

  void allReduceMean(std::vector<at::Tensor>& perReplica) override {
    checkCount(perReplica);
    checkUsable();
    torch::NoGradGuard noGrad;
    // This process's sum first (replica order, as the local communicator), then the sum
    // across processes; the division by every replica makes it the group's mean.
    torch::Tensor sum = perReplica.front().to(m_device, /*non_blocking=*/false, /*copy=*/true).contiguous();
    for (std::size_t i = 1; i < perReplica.size(); ++i) sum.add_(perReplica[i].to(m_device));
    std::vector<at::Tensor> buffer{sum};
    collective("all-reduce", [&] { await(*m_group->allreduce(buffer)); });
    sum.div_(double(worldReplicas()));
    for (auto& tensor : perReplica) tensor.copy_(sum);  // copy_ moves it to each replica's device
  }

  std::vector<at::Tensor> allGather(const std::vector<at::Tensor>& perReplica) override {
    checkCount(perReplica);
    checkUsable();
    std::vector<at::Tensor> local;
    for (const auto& tensor : perReplica) local.push_back(tensor.to(m_device));
    std::vector<at::Tensor> input{torch::stack(local).contiguous()};
    std::vector<std::vector<at::Tensor>> output(1);
    for (int rank = 0; rank < m_options.worldSize; ++rank) output[0].push_back(torch::empty_like(input[0]));
    collective("all-gather", [&] { await(*m_group->allgather(output, input)); });
    // On the CPU, as Communicator promises: NCCL gathers on this rank's GPU, and the score
    // exchange reads its rows on the host (one copy per rank).
    std::vector<at::Tensor> gathered;
    for (const auto& fromRank : output[0]) {
      for (const auto& replica : fromRank.cpu().unbind(0)) gathered.push_back(replica);
    }
    return gathered;
  }

  int worldReplicas() const override { return m_localReplicas * m_options.worldSize; }
  int firstReplica() const override { return m_localReplicas * m_options.rank; }
  int processRank() const override { return m_options.rank; }
  int processCount() const override { return m_options.worldSize; }
  LeaderRunFolder leaderRunFolder() const override {
    if (m_options.rank == 0) return {};
    const nlohmann::json& hello = m_rendezvous->leaderHello();
    if (!hello.is_object()) return {};  // value() throws on anything else
    return {hello.value("run_folder", ""), hello.value("host", "")};
  }
  std::string name() const override { return m_backend; }
  void announceFailure(const std::string& message) override { m_rendezvous->announceFailure(message); }
  void finish() override { m_rendezvous->finish(); }

 private:
  void checkCount(const std::vector<at::Tensor>& perReplica) const {
    TORCH_CHECK(int(perReplica.size()) == m_localReplicas, "process group expected ", m_localReplicas,
                " local tensors, got ", perReplica.size());
  }

  void checkUsable() const {
    if (!m_group) throw DistributedError("the process group was closed after an earlier failure");
  }

  /// Waits for one operation of the group. Gloo's wait watches for a peer that is gone
  /// (WatchedWait.h). NCCL's is left as it was: its wait only orders the streams, and a lost
  /// peer ends its operations through NCCL's own timeout.
  void await(c10d::Work& work) {
    if (m_backend != "gloo") {
      work.wait();
      return;
    }
    waitWatchingPeers(work, kWatchSlice, [this] { return m_rendezvous->gonePeer(); });
  }

  /// Runs one operation of the group; a failure becomes an error naming the lost rank.
  template <typename Operation>
  void collective(const char* what, Operation&& operation) {
    try {
      operation();
    } catch (const std::exception& error) {
      if (dynamic_cast<const PeerGone*>(&error)) {
        // The abandoned operation still waits in one of the group's threads until its own
        // timeout, and destroying the group would join that thread: keep it until the
        // process ends (which follows: the run has failed).
        static auto* abandoned = new std::vector<c10::intrusive_ptr<GroupBackend>>();
        abandoned->push_back(std::move(m_group));
      }
      // Closing our connections first makes every rank still waiting on us fail at once,
      // instead of at its timeout, and join the diagnosis.
      m_group.reset();
      throw DistributedError("rank " + std::to_string(m_options.rank) + " could not " + what + ": " +
                             m_rendezvous->diagnose(describeException(error)));
    }
  }

  void connectNccl(const c10::intrusive_ptr<c10d::PrefixStore>& store, std::chrono::milliseconds timeout) {
#ifdef ENSEMBLELAB_WITH_C10D_NCCL
    // A failed or timed-out collective must throw from wait() (and reach collective()'s
    // diagnosis), not abort the process from NCCL's watchdog thread.
    environment::setDefault(environment::kTorchNcclBlockingWait, "1");
    environment::setDefault(environment::kNcclBlockingWait, "1");
    auto ncclOptions = c10d::ProcessGroupNCCL::Options::create();
    ncclOptions->timeout = timeout;
    collective("connect the NCCL process group", [&] {
      m_group = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, m_options.rank, m_options.worldSize, ncclOptions);
    });
#else
    (void)store;
    (void)timeout;
    throw ConfigError("this build of EnsembleLab has no NCCL process group");
#endif
  }

  ProcessGroupOptions m_options;
  std::string m_backend;
  int m_localReplicas;
  torch::Device m_device;  ///< where collectives run: the CPU for Gloo, this rank's GPU for NCCL
  std::unique_ptr<Rendezvous> m_rendezvous;
  c10::intrusive_ptr<GroupBackend> m_group;
};

}  // namespace

bool processGroupsAvailable() { return glooGroupBuilt(); }


std::unique_ptr<Communicator> connectProcessGroup(const ProcessGroupOptions& options, int localReplicas,
                                                  const std::string& device, const std::string& deviceLocation,
                                                  const nlohmann::json& config, const std::string& runFolder) {
  options.validate();
  const std::string backend = chooseBackend(options.backend, device);
  return std::make_unique<ProcessGroupCommunicator>(options, backend, localReplicas, torch::Device(device),
                                                    deviceLocation, config, runFolder);
}

#else

bool processGroupsAvailable() { return false; }

std::unique_ptr<Communicator> connectProcessGroup(const ProcessGroupOptions&, int, const std::string&,
                                                  const std::string&, const nlohmann::json&, const std::string&) {
  throw ConfigError("this build of EnsembleLab has no c10d process groups (LibTorch's distributed headers "
                    "were missing when it was built); run with one process, or rebuild against a LibTorch "
                    "with them (Debian's libtorch-dev, or the PyPI torch wheel)");
}

#endif

}  // namespace ensemble
