// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Replicas on several GPUs of one process agree through NCCL, the way jax.pmap's pmean
// does: one communicator per device (ncclCommInitAll), every average an all-reduce on
// the devices' default stream, grouped because one thread drives all of them. Built only
// where CMake finds NCCL (ENSEMBLELAB_WITH_NCCL); CPU builds never see it.
#include <memory>
#include <vector>

#include "core/comm/Communicator.h"

namespace ensemble {

/// True when this build has NCCL.
bool ncclAvailable();

/// A communicator over the CUDA devices `deviceIndices` (one replica each), or throws
/// DeviceError naming the NCCL or CUDA failure. `timeoutSeconds` bounds every collective:
/// one that does not finish in time aborts the communicators and throws, never hangs.
std::unique_ptr<Communicator> makeNcclCommunicator(const std::vector<int>& deviceIndices, double timeoutSeconds);

}  // namespace ensemble
