// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/RunWriterLock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"

namespace ensemble {
namespace {

enum class Attempt { Locked, Held, Unsupported };

/// Tries `operation` (LOCK_EX or LOCK_SH) on a new descriptor of the folder, which is
/// returned in `descriptor` when locked and closed otherwise.
Attempt tryLock(const std::string& runDirectory, int operation, int& descriptor) {
  descriptor = ::open(runDirectory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (descriptor < 0) return Attempt::Unsupported;  // the caller's own reads say what is wrong
  int result;
  do {
    result = ::flock(descriptor, operation | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result == 0) return Attempt::Locked;
  const bool held = errno == EWOULDBLOCK;
  ::close(descriptor);
  descriptor = -1;
  return held ? Attempt::Held : Attempt::Unsupported;
}

[[noreturn]] void throwHeld(const std::string& runDirectory) {
  throw IoError(runDirectory + " is being trained by another process (a `train` or `resume` from the CLI, a "
                "sweep, or the window): two writers would mix their rows and checkpoints. Wait for it to end, or "
                "stop it (Ctrl+C, or Stop in the window; it checkpoints), then resume with: " +
                mention::resumeCommand(runDirectory));
}

}  // namespace

RunWriterLock RunWriterLock::take(const std::string& runDirectory) {
  int descriptor = -1;
  if (tryLock(runDirectory, LOCK_EX, descriptor) == Attempt::Held) throwHeld(runDirectory);
  return RunWriterLock(descriptor);
}

std::optional<RunWriterLock> RunWriterLock::tryTake(const std::string& directory) {
  int descriptor = -1;
  if (tryLock(directory, LOCK_EX, descriptor) == Attempt::Held) return std::nullopt;
  return RunWriterLock(descriptor);
}

bool RunWriterLock::heldElsewhere(const std::string& runDirectory) {
  int descriptor = -1;
  const Attempt attempt = tryLock(runDirectory, LOCK_SH, descriptor);
  if (descriptor >= 0) ::close(descriptor);  // a shared lock, let go at once
  return attempt == Attempt::Held;
}

void RunWriterLock::refuseIfHeldElsewhere(const std::string& runDirectory) {
  if (heldElsewhere(runDirectory)) throwHeld(runDirectory);
}

RunWriterLock::~RunWriterLock() {
  if (m_descriptor >= 0) ::close(m_descriptor);  // closing the descriptor lets the lock go
}

RunWriterLock::RunWriterLock(RunWriterLock&& other) noexcept : m_descriptor(std::exchange(other.m_descriptor, -1)) {}

RunWriterLock& RunWriterLock::operator=(RunWriterLock&& other) noexcept {
  if (this != &other) {
    if (m_descriptor >= 0) ::close(m_descriptor);
    m_descriptor = std::exchange(other.m_descriptor, -1);
  }
  return *this;
}

}  // namespace ensemble
