// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Checks a tensor file (what torch::pickle_save writes: a ZIP of data.pkl and raw
// storages) before LibTorch reads it. LibTorch trusts the sizes it finds and allocates
// them first — a 1 KB file could make it ask for gigabytes (found by fuzzing) — so every
// size a reader would allocate is checked here against the bytes actually present.
#include <string>

namespace ensemble {

/// Throws CheckpointError naming `origin` when `bytes` is not a ZIP whose entries are
/// stored (uncompressed) within the file, or when its data.pkl holds an opcode LibTorch's
/// unpickler does not know or a length larger than what follows it.
void checkTensorArchive(const std::string& bytes, const std::string& origin);

/// Throws the same CheckpointError where a file's first bytes (4 or more, or all it has) are
/// neither a ZIP's nor a legacy pickle's: a file that cannot be a tensor file is refused
/// before it is read whole (a 2 GB download given by mistake had been).
void checkTensorFileStart(const std::string& firstBytes, const std::string& origin);

}  // namespace ensemble
