// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "app/cli/CliOptions.h"

namespace ensemble::cli {

/// Runs a parsed command and returns the process exit status (see usageText()).
int runCommand(const CliOptions& options);

}  // namespace ensemble::cli
