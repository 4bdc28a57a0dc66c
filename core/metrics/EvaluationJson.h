#pragma once
// JSON form of evaluation results, as summary.json and checkpoints store them.
#include <nlohmann/json_fwd.hpp>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

nlohmann::json toJson(const EvaluationResult& result);
/// Throws ConfigError naming `origin` when keys are missing or of the wrong type.
EvaluationResult evaluationFromJson(const nlohmann::json& json, const std::string& origin);

}  // namespace ensemble
