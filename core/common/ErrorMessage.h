// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One translation from an exception to the line a user reads, shared by the engine, the
// CLI and the UI (each catches at its boundary). Torch-free header.
#include <string>

namespace ensemble {

/// The message of the exception being handled (call inside a catch block): our typed
/// errors as written, LibTorch's without its backtrace (with a hint for out-of-memory),
/// host allocation failure with what to do.
std::string describeCurrentException();

}  // namespace ensemble
