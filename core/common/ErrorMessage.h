// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One translation from an exception to the line a user reads, shared by the engine, the
// CLI and the UI (each catches at its boundary). Torch-free header.
#include <exception>
#include <string>

#include "core/common/LongWords.h"  // withLongWordsCut, which describeCurrentException applies

namespace ensemble {

/// The message of the exception being handled (call inside a catch block): our typed
/// errors as written, LibTorch's without its backtrace (with a hint for out-of-memory),
/// host allocation failure with what to do; long words cut (withLongWordsCut).
std::string describeCurrentException();

/// Whether `error` says the host ran out of memory (std::bad_alloc, or LibTorch's CPU
/// allocator's "can't allocate memory").
bool isHostOutOfMemory(const std::exception& error);

/// `error`'s message, without the C++ backtrace LibTorch's errors carry (c10::Error's
/// what() ends with "frame #17: __libc_start_main ..."), for a message a person reads.
std::string describeException(const std::exception& error);

}  // namespace ensemble
