// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/Environment.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/common/Error.h"

namespace ensemble::environment {

const char* read(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

bool isSetTo(const char* name, const char* value, const char* meaning) {
  const char* actual = read(name);
  if (!actual) return false;
  if (std::string(actual) == value) return true;
  throw ConfigError(std::string(name) + " is '" + actual + "', which it does not take: set it to '" + value + "' (" +
                    meaning + "), or unset it.");
}

void setDefault(const char* name, const char* value) { ::setenv(name, value, /*overwrite=*/0); }

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace ensemble::environment
