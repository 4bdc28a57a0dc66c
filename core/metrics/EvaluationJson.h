// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// JSON form of evaluation results, as summary.json and checkpoints store them.
#include <nlohmann/json_fwd.hpp>

#include "core/metrics/EvaluationResult.h"
#include "core/metrics/OodResult.h"

namespace ensemble {

nlohmann::json toJson(const EvaluationResult& result);
/// {"dataset", "in_samples", "out_samples", "members": [{"auroc_max_probability",
/// "auroc_entropy"}], "ensemble": {the same, "auroc_mutual_information"}}
nlohmann::json toJson(const OodResult& result);
/// Throws ConfigError naming `origin` when keys are missing or of the wrong type.
EvaluationResult evaluationFromJson(const nlohmann::json& json, const std::string& origin);

}  // namespace ensemble
