// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/RemoveTree.h"

#include <ftw.h>

#include <cerrno>
#include <cstdio>

namespace ensemble {
namespace {

/// nftw's callback takes no state of its own: the first failure of this thread's walk.
thread_local int t_firstError = 0;

int removeEntry(const char* path, const struct stat*, int, struct FTW*) {
  // FTW_DEPTH visits a folder after its contents, so remove() meets it empty.
  if (std::remove(path) != 0 && errno != ENOENT && t_firstError == 0) t_firstError = errno;
  return 0;  // go on: remove what can be removed
}

}  // namespace

bool removeTree(const std::string& path, std::error_code& error) {
  error.clear();
  t_firstError = 0;
  // FTW_PHYS: a symbolic link is removed, never followed out of the tree.
  if (nftw(path.c_str(), removeEntry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT && t_firstError == 0) {
    t_firstError = errno;
  }
  if (t_firstError != 0) error.assign(t_firstError, std::generic_category());
  return t_firstError == 0;
}

}  // namespace ensemble
