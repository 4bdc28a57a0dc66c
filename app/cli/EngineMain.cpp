// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-cli: the headless entry point. Parsing and dispatch only.
#include <cstdio>
#include <cstring>

#include "app/cli/CliCommands.h"
#include "app/cli/CliCompletion.h"
#include "app/cli/CliOptions.h"
#include "core/common/ErrorMessage.h"
#include "core/common/TorchLogging.h"

int main(int argc, char** argv) {
  ensemble::quietTorchLogging();  // what LibTorch logs of a failure, our message says
  if (argc >= 2 && std::strcmp(argv[1], "--complete") == 0) {
    // Words, not a command: a half-typed line is no usage error. Whatever goes wrong, the
    // shell gets nothing to offer rather than a message in the middle of the line.
    try {
      for (const std::string& word : ensemble::cli::completions(std::vector<std::string>(argv + 2, argv + argc))) {
        std::printf("%s\n", word.c_str());
      }
    } catch (...) {
    }
    return 0;
  }
  try {
    return ensemble::cli::runCommand(
        ensemble::cli::parseCommandLine(std::vector<std::string>(argv + 1, argv + argc)));
  } catch (const ensemble::cli::UsageError& e) {
    std::fprintf(stderr, "ensemble-lab-cli: %s\n", ensemble::withLongWordsCut(e.what()).c_str());
    return 2;
  }
}
