// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliAnswers.h"

#include <cstdio>

#include "core/common/LongWords.h"

namespace ensemble::cli {

bool answerAboutTheCli(const CliOptions& options) {
  if (options.command == "help") {
    std::printf("%s", (options.helpFor.empty() ? usageText() : commandUsageText(options.helpFor)).c_str());
    return true;
  }
  if (options.command == "version") {
    std::printf("ensemble-lab-cli %s\n", ENSEMBLELAB_VERSION);
    return true;
  }
  if (options.command == "list-flags") {
    for (const std::string& flag : flagsOf(options.value("command"))) std::printf("--%s\n", flag.c_str());
    return true;
  }
  return false;
}

void printCompletions(const std::vector<std::string>& words) {
  for (const std::string& word : words) std::printf("%s\n", word.c_str());
}

int reportUsageError(const UsageError& error) {
  std::fprintf(stderr, "ensemble-lab-cli: %s\n", withLongWordsCut(error.what()).c_str());
  return 2;
}

}  // namespace ensemble::cli
