// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A rank's pulse in the rendezvous store: a thread that adds 1 to this rank's key every
// period, so that the survivors of a failed collective can tell which rank went silent.
//
// Over a network, the store's host can vanish without a reset (a cut link, a powered-off
// host): a store call then waits in recv() with no end. Stopping must not wait for it, or
// the process would never exit. So the thread owns everything it touches (the store, the
// key, its flags), and a stop that does not see it finish within a bound leaves it
// detached: harmless, and ended with the process.
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace ensemble {

class Heartbeat final {
 public:
  Heartbeat(c10::intrusive_ptr<c10d::Store> store, std::string key, std::chrono::milliseconds period);
  /// Stops within `kStopBound` even when the thread is stuck in a store call.
  ~Heartbeat();
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  static constexpr std::chrono::milliseconds kStopBound{1000};

 private:
  struct Shared;
  std::shared_ptr<Shared> m_shared;
};

}  // namespace ensemble
