// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/Environment.h"

#include <unistd.h>

#include <cstdlib>

namespace ensemble::environment {

const char* read(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

void setDefault(const char* name, const char* value) { ::setenv(name, value, /*overwrite=*/0); }

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace ensemble::environment
