// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-cli: the headless entry point. Parsing and dispatch only.
#include <cstdio>

#include "app/cli/CliCommands.h"
#include "app/cli/CliOptions.h"
#include "core/common/TorchLogging.h"

int main(int argc, char** argv) {
  ensemble::quietTorchLogging();  // what LibTorch logs of a failure, our message says
  try {
    return ensemble::cli::runCommand(
        ensemble::cli::parseCommandLine(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const ensemble::cli::UsageError& e) {
    std::fprintf(stderr, "ensemble-lab-cli: %s\n", e.what());
    return 2;
  }
}
