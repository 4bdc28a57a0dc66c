// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One writer per run folder. The process that trains a run (the CLI's `train` or `resume`, a
// sweep's job, the window) holds an advisory lock (flock) on the folder itself while it
// writes, so that a second `resume` of the same run, or the window's Resume of a run the CLI
// is training, is refused instead of interleaving two writers' rows and checkpoints; and so
// that the window can tell a run that is training elsewhere from one that was interrupted.
//
// The kernel drops the lock when the process ends, however it ends: a killed run leaves no
// stale lock. No file is added to the folder. Where the filesystem cannot lock a directory
// (some network filesystems), nothing is locked and nothing is refused: the check is a
// guard, not a condition for training.
#include <optional>
#include <string>

namespace ensemble {

class RunWriterLock final {
 public:
  RunWriterLock() = default;
  /// Locks `runDirectory` (which must exist) for this process's writes. Throws IoError
  /// saying that another process is training the run, and what to do, when one holds it.
  static RunWriterLock take(const std::string& runDirectory);
  /// Locks `directory` (which must exist) as take() does; nullopt, taking nothing, where
  /// another process holds it (a caller that locks a folder of its own kind, a sweep's,
  /// says in its own words what to do).
  static std::optional<RunWriterLock> tryTake(const std::string& directory);
  /// True when another process (or another open session in this one) holds the lock now.
  static bool heldElsewhere(const std::string& runDirectory);
  /// Throws the same IoError as take() when the lock is held, without taking it.
  static void refuseIfHeldElsewhere(const std::string& runDirectory);

  ~RunWriterLock();
  RunWriterLock(RunWriterLock&& other) noexcept;
  RunWriterLock& operator=(RunWriterLock&& other) noexcept;
  RunWriterLock(const RunWriterLock&) = delete;
  RunWriterLock& operator=(const RunWriterLock&) = delete;

 private:
  explicit RunWriterLock(int descriptor) : m_descriptor(descriptor) {}
  int m_descriptor = -1;
};

}  // namespace ensemble
