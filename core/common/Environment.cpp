// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/Environment.h"

#include <cstdlib>

namespace ensemble::environment {

const char* read(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

}  // namespace ensemble::environment
