// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Waiting for a Gloo collective while watching for a peer that is gone. Gloo ends an
// operation with an error when its connection to a peer breaks, but not always (PulsePort.h
// says when); a killed peer would then hold this rank until --timeout. So the wait is cut
// into slices, and between them the caller is asked whether some peer is known to be gone.
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

namespace ensemble {

/// Thrown by waitWatchingPeers when a peer is gone while the operation still runs: the
/// operation is abandoned, and its process group must not be destroyed, since destroying
/// it would wait for the operation's own timeout.
class PeerGone final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Returns when `work` has finished; rethrows its error. Every `slice` while it runs, calls
/// `gonePeer`, and throws PeerGone with what it says when that is not empty.
void waitWatchingPeers(c10d::Work& work, std::chrono::milliseconds slice, const std::function<std::string()>& gonePeer);

}  // namespace ensemble
