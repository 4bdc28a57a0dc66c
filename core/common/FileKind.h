// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a path names where it is not a file to read: said in messages, and refused before a
// read that would never end (/dev/zero, a pipe with no writer) or fail obscurely (a folder).
#include <string>

namespace ensemble {

/// "a folder", "a device", "a pipe (FIFO)" or "a socket"; empty for a regular file, or where
/// it cannot be told (a missing path: opening it says so).
std::string notAFileKind(const std::string& path);

}  // namespace ensemble
