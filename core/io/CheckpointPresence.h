// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether a run has a checkpoint to go on from, for callers that need no LibTorch (the
// window's Resume, its sweep queue): the one rule for it, the engine's (Checkpoint.cpp).
#include <string>

namespace ensemble {

/// Whether `checkpointsDir` holds a checkpoint: `latest`, or a whole step-* folder (a run
/// killed between naming its first checkpoint and writing `latest` has one).
bool holdsACheckpoint(const std::string& checkpointsDir);

}  // namespace ensemble
