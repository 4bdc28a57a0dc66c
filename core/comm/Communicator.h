// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The seam through which replicas agree: the ensemble's probability average and
// data-parallel's gradient average both go through allReduceMean. The local
// implementation averages replicas of one process; NCCL (several GPUs in one process) and
// c10d process groups (several processes or hosts) implement the same interface.
//
// The contract every implementation and every caller relies on:
//   - allReduceMean and allGather are collectives. Every process of the group calls them
//     the same number of times, in the same order, with tensors of the same shapes and
//     dtypes; a process that skips or reorders one leaves the others waiting (or pairs
//     their tensors with the wrong ones). So a collective is never called on one rank
//     only: the trainer calls them from code every rank runs alike (a training step, the
//     score exchange, checkpoint assembly, evaluation), and decisions that could differ
//     between ranks (stop now, write a file) are agreed through a collective first or
//     made without one (only rank 0 writes, after the collectives).
//   - Within a process, the calls come from one thread (the trainer's), never two at once.
//   - A broken group is reported as DistributedError naming the rank that went away,
//     never as a silent hang: implementations wait at most their timeout.
#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

namespace ensemble {

/// Where rank 0 writes the run, as its hello said: the folder's absolute path on rank 0's
/// host. Another rank writes nothing, and its own --out or --run may name no folder at all.
struct LeaderRunFolder {
  std::string path;  ///< empty in one process and on rank 0 itself
  std::string host;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  /// `perReplica` holds one tensor per replica driven by this process, each on its
  /// replica's device, all of the same shape and dtype. Afterwards every one of them holds
  /// the mean over all replicas of the group (this process's and any others').
  virtual void allReduceMean(std::vector<at::Tensor>& perReplica) = 0;

  /// Every replica's tensor across the whole group, in global replica order (this
  /// process's replicas sit at firstReplica() onwards), on the CPU. `perReplica` holds
  /// one tensor per local replica, all of the same shape and dtype.
  virtual std::vector<at::Tensor> allGather(const std::vector<at::Tensor>& perReplica) = 0;

  /// Replicas in the whole group, across processes.
  virtual int worldReplicas() const = 0;

  /// Global index of this process's first replica (member indices and seeds follow it).
  virtual int firstReplica() const { return 0; }

  /// This process's rank and the number of processes; rank 0 writes the run folder.
  virtual int processRank() const { return 0; }
  virtual int processCount() const { return 1; }

  /// On a rank other than 0: rank 0's run folder (LeaderRunFolder); empty otherwise.
  virtual LeaderRunFolder leaderRunFolder() const { return {}; }

  /// Tells the other processes, best effort, why this one is leaving, so that they can
  /// name it in their own error instead of only seeing a lost connection.
  virtual void announceFailure(const std::string& /*message*/) {}

  /// Called once the run has ended normally on this process: the process hosting the
  /// rendezvous waits for the others, so none of them loses it while finishing.
  virtual void finish() {}

  /// A short name for logs and summaries ("local", "nccl", "gloo", ...).
  virtual std::string name() const = 0;
};

}  // namespace ensemble
