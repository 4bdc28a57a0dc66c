// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which of this host's addresses the others can reach it on. Gloo binds every rank to one
// address and tells its peers to connect there. Torch's default is the address this host's
// name resolves to, which on Debian's default /etc/hosts (and many real hosts) is 127.0.1.1:
// peers on other hosts are then told to connect to their own loopback. The address the
// kernel would send from to reach rank 0 is one rank 0 can reach back. Torch-free.
#include <chrono>
#include <string>

namespace ensemble {

/// This host's address on the route to `host` (a name or a numeric IPv4/IPv6 address),
/// as the kernel picks it for a packet sent there; `host`'s own address on rank 0's host.
/// Sends nothing. Throws DistributedError naming `host` and saying how to choose an
/// interface (GLOO_SOCKET_IFNAME) when it does not resolve or no route leads there.
std::string localAddressTowards(const std::string& host);

/// Whether `host:port` accepts a TCP connection within `within` (a fresh one, closed at
/// once). A host behind a cut link answers nothing, and a call on an open connection to it
/// can wait forever; this cannot.
bool acceptsConnections(const std::string& host, int port, std::chrono::milliseconds within);

}  // namespace ensemble
