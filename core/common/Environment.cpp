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

std::string oneOf(const char* name, std::initializer_list<const char*> values, const char* meaning) {
  const char* actual = read(name);
  if (!actual) return "";
  std::string taken;
  for (const char* value : values) {
    if (std::string(actual) == value) return actual;
    taken += (taken.empty() ? "'" : " or '") + std::string(value) + "'";
  }
  throw ConfigError(std::string(name) + " is '" + actual + "', which it does not take: set it to " + taken + " (" +
                    meaning + "), or unset it.");
}

bool isSetTo(const char* name, const char* value, const char* meaning) {
  return !oneOf(name, {value}, meaning).empty();
}

void setDefault(const char* name, const char* value) { ::setenv(name, value, /*overwrite=*/0); }

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace ensemble::environment
