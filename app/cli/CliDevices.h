// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "app/cli/CliOptions.h"

namespace ensemble::cli {

/// `devices`: the CPU and every CUDA device. `devices --check [--timeout S]`: all-reduces
/// across them too (core/comm/AllReduceCheck.h); 1 when one fails or hangs, naming it.
int commandDevices(const CliOptions& options);

}  // namespace ensemble::cli
