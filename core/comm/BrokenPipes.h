// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Gloo sends to its peers with writev(), which cannot be told MSG_NOSIGNAL: once a peer
// process has died, the next write raises SIGPIPE, whose default action ends this process
// at once and silently, before the error could name the rank that went away. Python
// ignores SIGPIPE at startup, which is why PyTorch programs never meet this; a C++ program
// that joins a process group must do it itself.

namespace ensemble {

/// Ignores SIGPIPE (writes to a closed socket then fail with EPIPE, which Gloo reports as
/// an error) unless the program has installed a handler of its own. Idempotent.
void ignoreBrokenPipes();

}  // namespace ensemble
