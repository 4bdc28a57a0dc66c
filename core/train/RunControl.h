// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stops or pauses a run from another thread (the UI) or a signal handler (the CLI). The
// engine looks at it at every step boundary, so a request takes effect within one step.
#include <atomic>
#include <condition_variable>
#include <mutex>

namespace ensemble {

class RunControl final {
 public:
  RunControl() = default;
  RunControl(const RunControl&) = delete;
  RunControl& operator=(const RunControl&) = delete;

  /// Asks the run to stop at the next step boundary (and wakes it if paused).
  void requestStop();
  /// The same, safe to call from a signal handler (no locks); a paused run notices within
  /// its polling interval.
  void requestStopFromSignal() noexcept { m_stop.store(true); }
  void pause();
  /// Lets a paused run go on ("resume" is reserved for continuing from a checkpoint).
  void unpause();

  bool stopRequested() const { return m_stop.load(); }
  bool pauseRequested() const { return m_pause.load(); }
  /// True while the engine is blocked in waitWhilePaused().
  bool isParked() const { return m_parked.load(); }

  /// For the engine: blocks while a pause is requested and no stop is.
  /// Returns true if it actually waited.
  bool waitWhilePaused();

 private:
  static_assert(std::atomic<bool>::is_always_lock_free, "signal safety needs lock-free atomics");
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_pause{false};
  std::atomic<bool> m_parked{false};
  std::mutex m_mutex;
  std::condition_variable m_wake;
};

}  // namespace ensemble
