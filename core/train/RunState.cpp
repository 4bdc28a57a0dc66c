// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/RunState.h"

#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/common/JsonErrorText.h"
#include "core/common/JsonInteger.h"
#include "core/metrics/EvaluationJson.h"

namespace ensemble {
namespace {

nlohmann::json accumulatorsToJson(const std::vector<ScoreAccumulator>& list) {
  nlohmann::json array = nlohmann::json::array();
  for (const auto& a : list) array.push_back({a.lossSum, a.correct, a.samples, a.steps});
  return array;
}

std::vector<ScoreAccumulator> accumulatorsFromJson(const nlohmann::json& array) {
  std::vector<ScoreAccumulator> list;
  for (const auto& item : array) {
    list.push_back({item.at(0).get<double>(), integerOrThrow<int64_t, CheckpointError>(item.at(1), "a score count"),
                    integerOrThrow<int64_t, CheckpointError>(item.at(2), "a score count"),
                    integerOrThrow<int64_t, CheckpointError>(item.at(3), "a score count")});
  }
  return list;
}

}  // namespace

void ScoreAccumulator::add(double stepLoss, int64_t stepCorrect, int64_t stepSamples) {
  lossSum += stepLoss;
  correct += stepCorrect;
  samples += stepSamples;
  ++steps;
}

ModelScore ScoreAccumulator::mean() const {
  return {steps ? lossSum / double(steps) : 0.0, samples ? double(correct) / double(samples) : 0.0};
}

nlohmann::json RunState::toJson() const {
  nlohmann::json json{{"epoch", epoch},
                      {"step_in_epoch", stepInEpoch},
                      {"global_step", globalStep},
                      {"train_seconds", trainSeconds},
                      {"samples_trained", samplesTrained},
                      {"metrics_bytes", metricsBytes},
                      {"train_samples", trainSamples},
                      {"train_set_crc32", trainSetDigest},
                      {"test_set_crc32", testSetDigest},
                      {"window", accumulatorsToJson(window)},
                      {"epoch_totals", accumulatorsToJson(epochTotals)}};
  if (lastEvaluation) json["last_evaluation"] = ensemble::toJson(*lastEvaluation);
  return json;
}

RunState RunState::fromJson(const nlohmann::json& json, const std::string& origin) {
  try {
    RunState state;
    const auto count = [&](const char* key) {
      return integerOrThrow<int64_t, CheckpointError>(json.at(key), origin + ": " + key);
    };
    state.epoch = count("epoch");
    state.stepInEpoch = count("step_in_epoch");
    state.globalStep = count("global_step");
    state.trainSeconds = json.at("train_seconds").get<double>();
    state.samplesTrained = count("samples_trained");
    state.metricsBytes = integerOrThrow<std::uint64_t, CheckpointError>(json.at("metrics_bytes"), origin + ": metrics_bytes");
    if (json.contains("train_samples")) state.trainSamples = count("train_samples");
    state.trainSetDigest = json.value("train_set_crc32", "");
    state.testSetDigest = json.value("test_set_crc32", "");
    state.window = accumulatorsFromJson(json.at("window"));
    state.epochTotals = accumulatorsFromJson(json.at("epoch_totals"));
    if (json.contains("last_evaluation")) {
      state.lastEvaluation = evaluationFromJson(json.at("last_evaluation"), origin);
    }
    return state;
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(origin + " holds a malformed run state (" + plainJsonError(e) +
                          "); the checkpoint is damaged");
  } catch (const ConfigError& e) {
    throw CheckpointError(e.what());
  }
}

}  // namespace ensemble
