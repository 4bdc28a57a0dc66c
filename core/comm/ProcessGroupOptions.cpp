// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/ProcessGroupOptions.h"

#include <cstdlib>

#include "core/common/Environment.h"
#include "core/common/Error.h"

namespace ensemble {
namespace {

int parseEnvironmentInteger(const char* name, const char* text) {
  const std::string value(text);
  try {
    std::size_t used = 0;
    const int parsed = std::stoi(value, &used);
    if (used == value.size()) return parsed;
  } catch (const std::exception&) {
  }
  throw ConfigError(std::string("environment variable ") + name + "='" + value +
                    "' is not an integer; unset it or set it as torchrun would");
}

}  // namespace

void ProcessGroupOptions::validate() const {
  if (worldSize < 1) {
    throw ConfigError("world size must be at least 1, got " + std::to_string(worldSize));
  }
  if (rank < 0 || rank >= worldSize) {
    throw ConfigError("rank " + std::to_string(rank) + " is outside the world of " +
                      std::to_string(worldSize) + " processes; ranks run from 0 to " +
                      std::to_string(worldSize - 1));
  }
  if (localRank < 0) throw ConfigError("local rank must be non-negative, got " + std::to_string(localRank));
  if (masterPort < 1 || masterPort > 65535) {
    throw ConfigError("master port must be in 1..65535, got " + std::to_string(masterPort));
  }
  if (distributed() && masterAddr.empty()) {
    throw ConfigError("a run of several processes needs --master-addr, the host of rank 0");
  }
  if (!backend.empty() && backend != "gloo" && backend != "nccl") {
    throw ConfigError("unknown backend '" + backend + "'; the backends are gloo (CPU) and nccl (GPU)");
  }
  if (!(timeoutSeconds > 0)) {
    throw ConfigError("timeout must be a positive number of seconds, got " + std::to_string(timeoutSeconds));
  }
}

void ProcessGroupOptions::mergeEnvironment(const std::function<const char*(const char*)>& lookup) {
  const auto get = [&](const char* name) -> const char* {
    if (!lookup) return environment::read(name);
    const char* value = lookup(name);
    return value && *value ? value : nullptr;
  };
  if (const char* value = get(environment::kWorldSize)) worldSize = parseEnvironmentInteger(environment::kWorldSize, value);
  if (const char* value = get(environment::kRank)) rank = parseEnvironmentInteger(environment::kRank, value);
  if (const char* value = get(environment::kLocalRank)) localRank = parseEnvironmentInteger(environment::kLocalRank, value);
  if (const char* value = get(environment::kMasterAddr)) masterAddr = value;
  if (const char* value = get(environment::kMasterPort)) masterPort = parseEnvironmentInteger(environment::kMasterPort, value);
  if (const char* value = get(environment::kUseAgentStore)) {
    agentServesStore = std::string(value) == "True" || std::string(value) == "1";
  }
  if (const char* value = get(environment::kRestartCount)) {
    restartCount = parseEnvironmentInteger(environment::kRestartCount, value);
  }
}

}  // namespace ensemble
