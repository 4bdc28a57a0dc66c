// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tells a killed rank from a hung one while a collective waits for it. Gloo does not always
// notice a peer that dies: a send whose write failed with ECONNRESET or EPIPE waits in the
// connection's queue, which the connection's error does not wake (Pair::signalException in
// gloo/transport/tcp/pair.cc), so it waits out the whole --timeout. TestDistributed saw it
// under torchrun, whose 30 s grace then killed rank 0 before it wrote its failed summary
// (docs/RELIABILITY.md). A heartbeat cannot tell the two apart: both stop beating. So each rank listens on a port of its own for as long as it lives.
// The kernel answers a knock on it even while the process is stopped or busy, and refuses
// it once the process is gone. A host that vanished answers nothing, which proves nothing:
// that case stays with --timeout. Torch-free.
#include <chrono>
#include <string>
#include <thread>

namespace ensemble {

/// This rank's pulse: a TCP socket listening on an ephemeral port of `address`, whose
/// knocks a thread of its own accepts and closes, so they never fill the queue.
class PulsePort final {
 public:
  /// Throws DistributedError when no socket can listen on `address` (Rendezvous then does
  /// without a pulse: a peer Gloo misses is found at --timeout, as before).
  explicit PulsePort(const std::string& address);
  ~PulsePort();
  PulsePort(const PulsePort&) = delete;
  PulsePort& operator=(const PulsePort&) = delete;

  int port() const { return m_port; }

 private:
  int m_socket = -1;
  int m_port = 0;
  std::thread m_acceptor;
};

enum class KnockAnswer {
  Accepted,  ///< something listens there: the process lives (perhaps stopped or busy)
  Refused,   ///< the host answered that nothing listens: the process is gone
  Silent,    ///< no answer within the bound (a cut link, a vanished host): unknown
};

/// Knocks once on `host:port` (a fresh connection, closed at once), waiting at most `within`.
KnockAnswer knock(const std::string& host, int port, std::chrono::milliseconds within);

}  // namespace ensemble
