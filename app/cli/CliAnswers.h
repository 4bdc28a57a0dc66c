// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the CLI prints of itself: help, version, its flags, completions, usage mistakes.
// Torch-free: the front door (FrontDoorMain.cpp) says all of it without starting the engine,
// and the engine (EngineMain.cpp) says it the same way when run directly.
#include <string>
#include <vector>

#include "app/cli/CliOptions.h"

namespace ensemble::cli {

/// Prints the answer to help (and every --help), version or list-flags and returns true;
/// returns false, printing nothing, for any other command.
bool answerAboutTheCli(const CliOptions& options);

/// Prints completions for the shell, one per line.
void printCompletions(const std::vector<std::string>& words);

/// Says a usage mistake on stderr ("ensemble-lab-cli: unknown flag ...") and returns its
/// exit status, 2.
int reportUsageError(const UsageError& error);

}  // namespace ensemble::cli
