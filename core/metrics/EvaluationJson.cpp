#include "core/metrics/EvaluationJson.h"

#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/common/JsonInteger.h"

namespace ensemble {

nlohmann::json toJson(const EvaluationResult& result) {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& m : result.members) {
    members.push_back({{"test_accuracy", m.accuracy}, {"test_loss", m.loss}});
  }
  return {{"members", members},
          {"ensemble",
           {{"test_accuracy", result.ensemble.accuracy},
            {"test_nll", result.ensemble.nll},
            {"test_brier", result.ensemble.brier},
            {"test_ece", result.ensemble.ece},
            {"disagreement", result.ensemble.disagreement}}},
          {"accuracy_vs_ensemble_size", result.accuracyVsSize},
          {"test_samples", result.samples}};
}

EvaluationResult evaluationFromJson(const nlohmann::json& json, const std::string& origin) {
  try {
    EvaluationResult result;
    for (const auto& m : json.at("members")) {
      result.members.push_back({m.at("test_loss").get<double>(), m.at("test_accuracy").get<double>()});
    }
    const auto& e = json.at("ensemble");
    result.ensemble.accuracy = e.at("test_accuracy").get<double>();
    result.ensemble.nll = e.at("test_nll").get<double>();
    result.ensemble.brier = e.at("test_brier").get<double>();
    result.ensemble.ece = e.at("test_ece").get<double>();
    result.ensemble.disagreement = e.at("disagreement").get<double>();
    result.accuracyVsSize = json.at("accuracy_vs_ensemble_size").get<std::vector<double>>();
    result.samples = integerOrThrow<int64_t, ConfigError>(json.at("test_samples"), origin + ": test_samples");
    return result;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(origin + ": malformed evaluation record (" + e.what() + ")");
  }
}

}  // namespace ensemble
