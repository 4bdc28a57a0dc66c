// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One translation from an exception to the line a user reads, shared by the engine, the
// CLI and the UI (each catches at its boundary). Torch-free header.
#include <exception>
#include <string>

namespace ensemble {

/// The message of the exception being handled (call inside a catch block): our typed
/// errors as written, LibTorch's without its backtrace (with a hint for out-of-memory),
/// host allocation failure with what to do; long words cut (withLongWordsCut).
std::string describeCurrentException();

/// `message` with every word (a run without whitespace) of more than 1,000 bytes cut to its
/// first 160 and last 40, the rest said in a count: a message quotes what it refuses, and a
/// corrupt config.json's key or value of megabytes had made a line of megabytes (in a
/// terminal, a dialog, summary.json). Cut between UTF-8 characters, never inside one.
std::string withLongWordsCut(const std::string& message);

/// Whether `error` says the host ran out of memory (std::bad_alloc, or LibTorch's CPU
/// allocator's "can't allocate memory").
bool isHostOutOfMemory(const std::exception& error);

/// `error`'s message, without the C++ backtrace LibTorch's errors carry (c10::Error's
/// what() ends with "frame #17: __libc_start_main ..."), for a message a person reads.
std::string describeException(const std::exception& error);

}  // namespace ensemble
