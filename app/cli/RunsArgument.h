// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The run folders `export --runs` names, read as a person writes them: comma-separated,
// though a folder's own name may hold a comma, and a sweep's folder (or any folder of runs)
// standing for the runs it holds.
#include <string>
#include <vector>

namespace ensemble::cli {

/// The run folders `value` lists. Pieces between commas are joined back where only the
/// joined path exists ("runs/a, b"); a listed folder that is no run but holds runs (a
/// sweep's, whose summary.json had been looked for, sending the user to `resume`) is its
/// runs, in name order (a sweep's job order). Throws ConfigError naming a listed path that
/// does not exist, or a folder that neither is nor holds a run.
std::vector<std::string> runsListed(const std::string& value);

}  // namespace ensemble::cli
