// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/RunsArgument.h"

#include <algorithm>
#include <filesystem>

#include "core/common/Error.h"
#include "core/io/RunDirectory.h"

namespace ensemble::cli {
namespace {

namespace fs = std::filesystem;

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

std::vector<std::string> split(const std::string& value) {
  std::vector<std::string> pieces(1);
  for (const char c : value) {
    if (c == ',') pieces.emplace_back();
    else pieces.back() += c;
  }
  return pieces;
}

/// The runs directly inside `folder`, by name.
std::vector<std::string> runsInside(const std::string& folder) {
  std::vector<std::string> runs;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dirEc;
    if (fs::is_directory(it->path(), dirEc) && RunDirectory(it->path().string()).holdsARun()) {
      runs.push_back(it->path().string());
    }
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

}  // namespace

std::vector<std::string> runsListed(const std::string& value) {
  const std::vector<std::string> pieces = split(value);
  std::vector<std::string> runs;
  for (std::size_t first = 0; first < pieces.size(); ++first) {
    if (pieces[first].empty()) continue;  // "a,,b" or a trailing comma
    // The longest run of pieces that, joined back, names a path: a folder "a, b" given whole.
    std::string path = pieces[first];
    std::size_t last = first;
    for (std::size_t end = first + 1; end < pieces.size(); ++end) {
      std::string candidate = path;
      for (std::size_t i = last + 1; i <= end; ++i) candidate += "," + pieces[i];
      if (exists(candidate)) {
        path = candidate;
        last = end;
      }
    }
    first = last;
    if (!exists(path)) {
      throw ConfigError("--runs names " + path + ", which does not exist; give run folders separated by commas");
    }
    if (RunDirectory(path).holdsARun()) {
      runs.push_back(path);
      continue;
    }
    const std::vector<std::string> inside = runsInside(path);
    if (inside.empty()) {
      throw ConfigError("--runs names " + path + ", which is neither a run folder (it has no config.json or "
                        "summary.json) nor a folder of runs (a sweep's)");
    }
    runs.insert(runs.end(), inside.begin(), inside.end());
  }
  if (runs.empty()) throw ConfigError("--runs takes run folders separated by commas");
  return runs;
}

}  // namespace ensemble::cli
