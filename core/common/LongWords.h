// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Messages cut down to a readable size. Torch-free (the CLI's front door uses it).
#include <string>

namespace ensemble {

/// `message` with every word (a run without whitespace) of more than 1,000 bytes cut to its
/// first 160 and last 40, the rest said in a count: a message quotes what it refuses, and a
/// corrupt config.json's key or value of megabytes had made a line of megabytes (in a
/// terminal, a dialog, summary.json). Cut between UTF-8 characters, never inside one.
std::string withLongWordsCut(const std::string& message);

}  // namespace ensemble
