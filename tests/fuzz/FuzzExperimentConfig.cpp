// SPDX-License-Identifier: GPL-3.0-or-later
// An experiment config file (what --config and every run's config.json are), and the run
// state a checkpoint manifest carries: parsed, validated, and round-tripped.
#include <nlohmann/json.hpp>

#include "core/config/ExperimentConfig.h"
#include "core/train/RunState.h"
#include "tests/fuzz/FuzzContract.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzzing::scratchPath("config.json");
  fuzzing::writeScratch(path, data, size);
  fuzzing::expectParsedOrRejected([&] {
    const ensemble::ExperimentConfig config = ensemble::ExperimentConfig::fromFile(path);
    config.validate();
    // A valid config survives its own JSON unchanged.
    const nlohmann::json json = config.toJson();
    fuzzing::require(ensemble::ExperimentConfig::fromJson(json, "round trip").toJson() == json,
                     "config does not round-trip through JSON");
  });
  const nlohmann::json state = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (!state.is_discarded()) {
    fuzzing::expectParsedOrRejected([&] { ensemble::RunState::fromJson(state, "fuzz manifest"); });
  }
  return 0;
}
