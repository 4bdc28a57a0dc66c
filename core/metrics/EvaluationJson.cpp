// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/EvaluationJson.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "core/common/Error.h"
#include "core/common/JsonErrorText.h"
#include "core/common/JsonInteger.h"

namespace ensemble {
namespace {

nlohmann::json testScoreJson(const TestScore& score) {
  return {{"test_accuracy", score.accuracy}, {"test_nll", score.loss}, {"test_brier", score.brier}, {"test_ece", score.ece}};
}

/// A score older runs did not record: NaN (shown as unknown), not a perfect 0. JSON
/// writes NaN as null, so null reads back as NaN.
double scoreOrUnknown(const nlohmann::json& json, const char* key) {
  if (!json.contains(key) || json.at(key).is_null()) return std::nan("");
  return json.at(key).get<double>();
}

/// A recorded score, NaN where it was written as null: runs before session 35 could record a
/// NaN test loss (weights the last update had ruined; now the run fails before recording it).
double recordedScore(const nlohmann::json& json, const char* key) {
  const nlohmann::json& value = json.at(key);
  return value.is_null() ? std::nan("") : value.get<double>();
}

TestScore testScoreFromJson(const nlohmann::json& json) {
  TestScore score;
  score.accuracy = recordedScore(json, "test_accuracy");
  // Older runs named a member's NLL test_loss and recorded no Brier or ECE per member.
  score.loss = recordedScore(json, json.contains("test_nll") ? "test_nll" : "test_loss");
  score.brier = scoreOrUnknown(json, "test_brier");
  score.ece = scoreOrUnknown(json, "test_ece");
  return score;
}

nlohmann::json reliabilityJson(const Reliability& reliability) {
  return {{"count", reliability.count}, {"confidence", reliability.confidence}, {"accuracy", reliability.accuracy}};
}

Reliability reliabilityFromJson(const nlohmann::json& json, const std::string& origin) {
  Reliability reliability;
  reliability.count = json.at("count").get<std::vector<int64_t>>();
  reliability.confidence = json.at("confidence").get<std::vector<double>>();
  reliability.accuracy = json.at("accuracy").get<std::vector<double>>();
  if (reliability.confidence.size() != reliability.count.size() || reliability.accuracy.size() != reliability.count.size()) {
    throw ConfigError(origin + ": malformed evaluation record (reliability bins of different lengths)");
  }
  return reliability;
}

}  // namespace

nlohmann::json toJson(const EvaluationResult& result) {
  nlohmann::json members = nlohmann::json::array();
  for (const auto& m : result.members) members.push_back(testScoreJson(m));
  nlohmann::json memberReliability = nlohmann::json::array();
  for (const auto& r : result.memberReliability) memberReliability.push_back(reliabilityJson(r));
  nlohmann::json json = {{"members", members},
          {"reliability", {{"members", memberReliability}, {"ensemble", reliabilityJson(result.ensembleReliability)}}},
          {"mean_member", testScoreJson(result.meanMember)},
          {"ensemble",
           {{"test_accuracy", result.ensemble.accuracy},
            {"test_nll", result.ensemble.nll},
            {"test_brier", result.ensemble.brier},
            {"test_ece", result.ensemble.ece},
            {"disagreement", result.ensemble.disagreement}}},
          {"accuracy_vs_ensemble_size",
           {{"mean", result.accuracyVsSize.mean}, {"min", result.accuracyVsSize.min}, {"max", result.accuracyVsSize.max}}},
          {"test_samples", result.samples}};
  if (!result.testSetDigest.empty()) json["test_set_crc32"] = result.testSetDigest;
  return json;
}

nlohmann::json toJson(const OodResult& result) {
  nlohmann::json members = nlohmann::json::array();
  for (const OodAuroc& m : result.members) {
    members.push_back({{"auroc_max_probability", m.maxProbability}, {"auroc_entropy", m.entropy}});
  }
  return {{"dataset", result.dataset},
          {"in_samples", result.inSamples},
          {"out_samples", result.outSamples},
          {"members", members},
          {"ensemble",
           {{"auroc_max_probability", result.ensemble.maxProbability},
            {"auroc_entropy", result.ensemble.entropy},
            {"auroc_mutual_information", result.ensemble.mutualInformation}}}};
}

EvaluationResult evaluationFromJson(const nlohmann::json& json, const std::string& origin) {
  try {
    EvaluationResult result;
    for (const auto& m : json.at("members")) result.members.push_back(testScoreFromJson(m));
    const auto& e = json.at("ensemble");
    result.ensemble.accuracy = recordedScore(e, "test_accuracy");
    result.ensemble.nll = recordedScore(e, "test_nll");
    result.ensemble.brier = recordedScore(e, "test_brier");
    result.ensemble.ece = recordedScore(e, "test_ece");
    result.ensemble.disagreement = recordedScore(e, "disagreement");
    if (json.contains("mean_member")) {
      result.meanMember = testScoreFromJson(json.at("mean_member"));
    } else {  // older runs: the mean of what the members recorded
      for (const TestScore& m : result.members) {
        result.meanMember.loss += m.loss / double(result.members.size());
        result.meanMember.accuracy += m.accuracy / double(result.members.size());
      }
      result.meanMember.brier = result.meanMember.ece = std::nan("");
    }
    const auto& curve = json.at("accuracy_vs_ensemble_size");
    if (curve.is_array()) {  // older runs: the first k members only, one value per size
      result.accuracyVsSize.mean = result.accuracyVsSize.min = result.accuracyVsSize.max = curve.get<std::vector<double>>();
    } else {
      result.accuracyVsSize.mean = curve.at("mean").get<std::vector<double>>();
      result.accuracyVsSize.min = curve.at("min").get<std::vector<double>>();
      result.accuracyVsSize.max = curve.at("max").get<std::vector<double>>();
    }
    if (json.contains("reliability")) {  // older runs have no reliability diagram
      for (const auto& r : json.at("reliability").at("members")) result.memberReliability.push_back(reliabilityFromJson(r, origin));
      result.ensembleReliability = reliabilityFromJson(json.at("reliability").at("ensemble"), origin);
    }
    result.samples = integerOrThrow<int64_t, ConfigError>(json.at("test_samples"), origin + ": test_samples");
    if (const auto digest = json.find("test_set_crc32"); digest != json.end() && digest->is_string()) {
      result.testSetDigest = digest->get<std::string>();  // older runs have none
    }
    return result;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(origin + ": malformed evaluation record (" + plainJsonError(e) + ")");
  }
}

}  // namespace ensemble
