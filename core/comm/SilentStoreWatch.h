// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Ends a rendezvous whose store accepted the connection but does not answer. LibTorch's
// store client can wait for an answer without a time limit (1.13's until its first wait()),
// so a rank 0 that is stopped (Ctrl+Z, a debugger) or another program listening on
// --master-port held a rank there for ever, --timeout or not. The rendezvous says it
// has heard the store at each step of its polling; after `limit` of silence this watch
// shuts down this process's connections to the store's port that were opened since it
// began, which ends the waiting call with an error that Rendezvous then names, and goes on
// doing so after each further `limit` of silence (a client may connect again) until the
// rendezvous ends. Torch-free.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace ensemble {

class SilentStoreWatch final {
 public:
  using Clock = std::chrono::steady_clock;

  /// Watches connections to TCP port `storePort` that this process opens from now on.
  SilentStoreWatch(int storePort, std::chrono::milliseconds limit);
  ~SilentStoreWatch();
  SilentStoreWatch(const SilentStoreWatch&) = delete;
  SilentStoreWatch& operator=(const SilentStoreWatch&) = delete;

  /// The store answered: its silence is counted from now.
  void heard();
  /// Whether the limit passed in silence and connections to the store were shut down.
  bool fired() const;

 private:
  void watch();

  const int m_storePort;
  const std::chrono::milliseconds m_limit;
  const std::set<std::string> m_socketsBefore;  ///< open before the watch began ("socket:[inode]"): not the store's
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  Clock::time_point m_lastHeard;
  bool m_stopping = false;
  bool m_fired = false;
  std::thread m_thread;  ///< last: starts once the members above are set
};

}  // namespace ensemble
