// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-cli's engine: every command, with LibTorch. Installed out of PATH
// (libexec/ensemble-lab/); the front door (FrontDoorMain.cpp) starts it in its own place
// for whatever needs LibTorch. Run directly, it answers everything itself.
#include <cstring>
#include <string>
#include <vector>

#include "app/cli/CliAnswers.h"
#include "app/cli/CliCommands.h"
#include "app/cli/CliCompletion.h"
#include "app/cli/CliOptions.h"
#include "core/common/TorchLogging.h"
#include "core/devices/DeviceInventory.h"

int main(int argc, char** argv) {
  using namespace ensemble::cli;
  ensemble::quietTorchLogging();  // what LibTorch logs of a failure, our message says
  if (argc >= 2 && std::strcmp(argv[1], "--complete") == 0) {
    // Words, not a command: a half-typed line is no usage error. Whatever goes wrong, the
    // shell gets nothing to offer rather than a message in the middle of the line.
    try {
      printCompletions(completions(std::vector<std::string>(argv + 2, argv + argc), ensemble::cudaDeviceCount));
    } catch (...) {
    }
    return 0;
  }
  try {
    return runCommand(parseCommandLine(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const UsageError& e) {
    return reportUsageError(e);
  }
}
