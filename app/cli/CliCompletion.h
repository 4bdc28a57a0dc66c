// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shell completion, answered by the CLI itself (`ensemble-lab-cli --complete WORD...`), so the
// shell script (packaging/ensemble-lab-cli.bash-completion) knows nothing that could drift
// from the flags, settings and choices the CLI takes. Torch-free: the front door answers
// every completion but the devices', which need LibTorch to count the GPUs.
#include <functional>
#include <string>
#include <vector>

namespace ensemble::cli {

/// Asks the shell to add the names of files (and folders), or of folders only, beginning
/// with the word being completed.
inline constexpr const char* kCompleteFiles = ":files";
inline constexpr const char* kCompleteFolders = ":dirs";

/// How many GPUs there are (LibTorch's count, which only the engine can ask).
using GpuCount = std::function<int()>;

/// What the last of `words` (the command line after the program's name, up to the cursor;
/// the last is the word being completed, "" at a space) may become: the commands, a
/// command's flags not yet given (a repeatable one again), or a flag's values (its choices,
/// a sweep's settings as "lr=", eval's shift kinds as "rotate:", the devices; after
/// "--flag=" in the word, as "--flag=value"), each beginning with that word; or
/// kCompleteFiles / kCompleteFolders for a path (after "--flag=": for what follows it).
/// `gpuCount` says how many GPUs there are; it is called only where the devices are offered.
std::vector<std::string> completions(const std::vector<std::string>& words, const GpuCount& gpuCount);

}  // namespace ensemble::cli
