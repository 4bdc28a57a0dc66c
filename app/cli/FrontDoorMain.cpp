// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-cli as a person runs it: the front door. It answers what needs no LibTorch
// itself (help, --help, version, list-flags, usage mistakes and the shell's completions)
// and hands every other command to the engine (EngineMain.cpp) by exec, in this same
// process: the same pid, signals, standard streams and exit status. Starting LibTorch cost
// each of those answers 0.4 s with Debian's (which loads 288 libraries) and over a second
// cold: every TAB of a completion waited for it. Torch-free, and linked without LibTorch.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "app/cli/CliAnswers.h"
#include "app/cli/CliCompletion.h"
#include "app/cli/CliOptions.h"

namespace {

/// Thrown where a completion would count the GPUs, which only the engine can.
struct EngineNeeded {};

/// The engine: in ENSEMBLELAB_ENGINE_FROM_BIN (where the install puts it, relative to its
/// bin folder; the build tree has the same layout) from this program's own folder.
std::filesystem::path engineFile() {
  std::error_code ignored;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ignored);
  return (self.parent_path() / ENSEMBLELAB_ENGINE_FROM_BIN / "ensemble-lab-cli-engine").lexically_normal();
}

/// Replaces this process with the engine, given the same arguments. Returns (1, said on
/// stderr) only where the engine cannot start.
int startEngine(char** argv) {
  const std::filesystem::path engine = engineFile();
  std::error_code ignored;
  if (std::filesystem::equivalent(engine, "/proc/self/exe", ignored)) {
    // A link there back to this program: starting itself would never end.
    std::fprintf(stderr, "ensemble-lab-cli: error: its engine %s leads back to this front door; put the engine "
                 "there: reinstall EnsembleLab, or build the target ensemble-lab-cli again\n", engine.c_str());
    return 1;
  }
  ::execv(engine.c_str(), argv);
  const int why = errno;
  std::fprintf(stderr, "ensemble-lab-cli: error: cannot start its engine %s (%s), which trains, evaluates and "
               "does every command but help; it is installed with ensemble-lab-cli: reinstall EnsembleLab, or "
               "build the target ensemble-lab-cli again (a copy of ensemble-lab-cli moved elsewhere finds no "
               "engine beside it: put a link there instead)\n", engine.c_str(), std::strerror(why));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ensemble::cli;
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  if (!arguments.empty() && arguments.front() == "--complete") {
    try {
      const std::vector<std::string> words(arguments.begin() + 1, arguments.end());
      printCompletions(completions(words, []() -> int { throw EngineNeeded{}; }));
      return 0;
    } catch (const EngineNeeded&) {
      return startEngine(argv);
    } catch (...) {
      return 0;  // as the engine: nothing to offer, rather than a message in the middle of the line
    }
  }
  try {
    if (answerAboutTheCli(parseCommandLine(arguments))) return 0;
  } catch (const UsageError& e) {
    return reportUsageError(e);
  } catch (...) {
    // Any other refusal is the engine's to say, in its words.
  }
  return startEngine(argv);
}
