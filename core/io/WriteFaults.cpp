// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/WriteFaults.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <mutex>

#include "core/common/Environment.h"
#include "core/common/Error.h"

namespace ensemble {
namespace {

struct Plan {
  bool active = false;
  std::string pathPart;
  int remaining = 0;  ///< matching writes still allowed before the fault
  int error = 0;
};

std::mutex g_mutex;
Plan g_plan;
bool g_environmentRead = false;

int parseErrno(const std::string& name) {
  if (name == "ENOSPC") return ENOSPC;
  if (name == "EACCES") return EACCES;
  if (name == "EIO") return EIO;
  throw ConfigError(std::string(environment::kWriteFault) + ": unknown error '" + name + "' (use ENOSPC, EACCES or EIO)");
}

/// "<path part>:<n>:<errno name>", e.g. "metrics.csv:3:ENOSPC".
void readEnvironmentOnce() {
  if (g_environmentRead) return;
  g_environmentRead = true;
  const char* value = environment::read(environment::kWriteFault);
  if (!value) return;
  const std::string spec(value);
  const std::size_t first = spec.find(':'), second = spec.rfind(':');
  if (first == std::string::npos || second == first) {
    throw ConfigError(std::string(environment::kWriteFault) + "='" + spec + "' is not <path part>:<n>:<ENOSPC|EACCES|EIO>");
  }
  g_plan = {true, spec.substr(0, first), std::atoi(spec.substr(first + 1, second - first - 1).c_str()) - 1,
            parseErrno(spec.substr(second + 1))};
}

}  // namespace

void planWriteFault(const std::string& pathPart, int nth, int error) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_environmentRead = true;
  g_plan = {true, pathPart, nth - 1, error};
}

void clearWriteFaults() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_environmentRead = true;
  g_plan = {};
}

int takeWriteFault(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  readEnvironmentOnce();
  if (!g_plan.active || path.find(g_plan.pathPart) == std::string::npos) return 0;
  if (g_plan.remaining > 0) {
    --g_plan.remaining;
    return 0;
  }
  return g_plan.error;
}

void crashPoint(const char* point) {
  static const std::string plan = [] {
    const char* value = environment::read(environment::kCrashAt);
    return std::string(value ? value : "");
  }();
  const std::size_t colon = plan.rfind(':');
  if (colon == std::string::npos || plan.compare(0, colon, point) != 0) return;
  static std::atomic<int> reached{0};
  if (++reached == std::atoi(plan.c_str() + colon + 1)) ::raise(SIGKILL);
}

}  // namespace ensemble
