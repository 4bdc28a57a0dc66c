// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One name for a file or folder however it was reached ("runs/a", "./runs/a/",
// "/home/u/runs/a" or a link to it): absolute, with links, "." and ".." resolved as far as
// the path exists. Where two paths must be told the same or apart (the runs a table names,
// the run a TensorBoard export belongs to); not for what a user is shown as typed.
#include <filesystem>
#include <string>

namespace ensemble {

/// `path` made canonical, or `path` as given where the filesystem cannot say.
inline std::string canonicalPath(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : canonical.string();
}

}  // namespace ensemble
