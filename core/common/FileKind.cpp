// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/FileKind.h"

#include <sys/stat.h>

namespace ensemble {

std::string notAFileKind(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return "";
  if (S_ISDIR(info.st_mode)) return "a folder";
  if (S_ISFIFO(info.st_mode)) return "a pipe (FIFO)";
  if (S_ISSOCK(info.st_mode)) return "a socket";
  return "a device";
}

}  // namespace ensemble
