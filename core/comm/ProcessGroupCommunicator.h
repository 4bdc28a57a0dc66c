// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Communicator across processes and hosts, on torch's own c10d process groups: a
// TCPStore rendezvous served by rank 0 and a Gloo (CPU tensors) or NCCL (GPU tensors)
// process group. Every collective that fails is turned into a DistributedError that names
// the rank that is gone, so no rank hangs or dies with only "connection closed".
#include <memory>
#include <nlohmann/json_fwd.hpp>

#include "core/comm/Communicator.h"
#include "core/comm/ProcessGroupOptions.h"

namespace ensemble {

/// True when this build has c10d with Gloo (LibTorch's distributed part and Gloo's headers).
bool processGroupsAvailable();

/// The backend a process whose first replica is on `device` ("cpu", "cuda:1") uses:
/// `requested`, or when empty NCCL for a GPU (where this build has it) and Gloo otherwise.
/// Throws ConfigError for NCCL on the CPU or in a build without it.
std::string chooseBackend(const std::string& requested, const std::string& device);

/// Joins the group `options` describes, with `localReplicas` replicas in this process
/// (the same on every rank), the first on `device`, which sits at `deviceLocation` on this
/// host (a GPU's PCI bus id: two NCCL ranks on one GPU are refused by it), `config`
/// (the run's settings, which every rank must share) and `runFolder` (where this rank
/// would write the run: rank 0's is told to the others, Communicator::leaderRunFolder).
/// Blocks until every rank has arrived, or throws DistributedError naming the missing or
/// mismatched rank, or ConfigError for a backend this build lacks.
std::unique_ptr<Communicator> connectProcessGroup(const ProcessGroupOptions& options, int localReplicas,
                                                  const std::string& device, const std::string& deviceLocation,
                                                  const nlohmann::json& config, const std::string& runFolder);

}  // namespace ensemble
