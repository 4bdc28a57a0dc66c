// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where this process sits in a multi-process run: its rank, the group's size, and the
// rendezvous address. Filled from CLI flags or from the environment variables torchrun
// sets, so an existing launcher starts EnsembleLab unchanged. Torch-free.
#include <cstdint>
#include <functional>
#include <string>

namespace ensemble {

struct ProcessGroupOptions {
  int worldSize = 1;  ///< processes in the run; 1 = no process group
  int rank = 0;       ///< this process, 0 .. worldSize-1; rank 0 writes the run folder
  int localRank = 0;  ///< this process on its host (picks the default GPU)
  std::string masterAddr = "127.0.0.1";  ///< host of rank 0, which serves the TCPStore
  int masterPort = 29500;
  std::string backend;   ///< "gloo", "nccl", or empty for gloo on CPU / nccl on GPU
  double timeoutSeconds = 300;  ///< how long to wait for a peer before naming it missing
  /// torchrun's agent already serves the TCPStore on the master port
  /// (TORCHELASTIC_USE_AGENT_STORE); then rank 0 connects to it instead of serving one.
  bool agentServesStore = false;
  /// torchrun's restart count: keys of an earlier attempt in the agent's store are ignored.
  int restartCount = 0;

  bool distributed() const { return worldSize > 1; }

  /// Throws ConfigError naming the bad field and its valid range.
  void validate() const;

  /// Overlays RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT,
  /// TORCHELASTIC_USE_AGENT_STORE and TORCHELASTIC_RESTART_COUNT (torchrun's names) read
  /// through `lookup` (environment::read by default). Throws ConfigError for a value that
  /// is not a number.
  void mergeEnvironment(const std::function<const char*(const char*)>& lookup = nullptr);
};

}  // namespace ensemble
