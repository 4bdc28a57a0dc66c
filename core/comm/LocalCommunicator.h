// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "core/comm/Communicator.h"

namespace ensemble {

/// Averages the replicas of one process, on the host or across devices, in a fixed order
/// (replica 0 first) so the result is bit-for-bit reproducible.
class LocalCommunicator final : public Communicator {
 public:
  explicit LocalCommunicator(int replicas) : m_replicas(replicas) {}

  void allReduceMean(std::vector<at::Tensor>& perReplica) override;
  std::vector<at::Tensor> allGather(const std::vector<at::Tensor>& perReplica) override;
  int worldReplicas() const override { return m_replicas; }
  std::string name() const override { return "local"; }

 private:
  int m_replicas;
};

}  // namespace ensemble
