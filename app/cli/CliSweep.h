// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "app/cli/CliOptions.h"

namespace ensemble::cli {

/// `sweep --grid ... [train flags] [--out DIR]` or `sweep --resume DIR` (core/runs/Sweep.h):
/// 0 when every job completed, 1 when one failed, 130 when stopped by a signal.
int commandSweep(const CliOptions& options);

}  // namespace ensemble::cli
