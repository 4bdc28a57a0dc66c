// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A test seam for the failures a long run meets on a real disk: every write in core/io
// asks here first, and a planned fault makes the Nth matching write fail with the errno a
// full disk (ENOSPC) or a revoked permission (EACCES) gives. Tests plan faults in-process;
// the CLI and the app read ENSEMBLELAB_WRITE_FAULT="<path part>:<n>:<ENOSPC|EACCES|EIO>"
// once, so end-to-end tests can fail a real process's Nth write. No plan, no effect.
#include <string>

namespace ensemble {

/// From now on, the `nth` write (1 = the next) to a path containing `pathPart` fails with
/// `error`, and so does every later one to such a path (a full disk stays full) until
/// clearWriteFaults().
void planWriteFault(const std::string& pathPart, int nth, int error);
void clearWriteFaults();

/// Called before each write to `path`: the errno to fail with, or 0 to go ahead.
int takeWriteFault(const std::string& path);

/// The crash seam beside the write faults: with ENSEMBLELAB_CRASH_AT="<point>:<n>" the
/// process SIGKILLs itself the nth time it reaches `point`, as the OOM killer or a user
/// would. End-to-end tests use it to stop a real process inside windows too short to hit
/// from outside (between two renames, halfway through deleting a folder). No plan, no effect.
void crashPoint(const char* point);

}  // namespace ensemble
