// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Crash-safe file writes: data goes to a temporary file in the same folder, is flushed to
// disk, and only then renamed over the final name. A reader never sees a half-written
// file under the final name. Errors throw IoError with the path and the system's reason.
#include <string>
#include <string_view>

namespace ensemble {

/// Writes `contents` to `path` atomically (temp file, fsync, rename, fsync of the folder).
void writeFileAtomically(const std::string& path, std::string_view contents);

/// fsyncs a folder so a rename or a new entry in it survives a crash.
void syncDirectory(const std::string& path);

/// Reads a whole file; throws IoError naming it when it cannot, or when it names a folder or
/// a device (/dev/zero has no end: read whole, it had taken gigabytes until killed). A pipe
/// is read (`--config <(...)`).
std::string readWholeFile(const std::string& path);


/// "<what> <path>: <strerror(errno)>" plus a hint for a full disk or missing permission.
std::string describeIoFailure(const std::string& what, const std::string& path, int error);

}  // namespace ensemble
