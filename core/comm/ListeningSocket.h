// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Rank 0's rendezvous socket, bound to the master address only. torch's TCPStore binds to
// every interface of the host; a store reachable on interfaces the run does not use is a
// door left open (README, "Who may join"). LibTorch 2.x's TCPStore takes over a socket made
// here; LibTorch 1.13's cannot, so the Debian build's store still listens everywhere.
// Torch-free.
#include <string>

namespace ensemble {

/// A TCP socket bound to `host` (a name or a numeric address of this host) and `port`,
/// listening, close-on-exec. Throws DistributedError: the port is in use, or `host` is not
/// an address of this host (then --master-addr is wrong for rank 0).
int listenOn(const std::string& host, int port);

}  // namespace ensemble
