// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/RunSummary.h"

#include <nlohmann/json.hpp>

#include <filesystem>

#include "core/common/EnumNames.h"
#include "core/common/Error.h"
#include "core/common/JsonInteger.h"
#include "core/common/TextFormat.h"
#include "core/config/ConfigFields.h"
#include "core/io/RunDirectory.h"
#include "core/metrics/EvaluationJson.h"

namespace ensemble {
namespace {

constexpr EnumName<RunStatus> kRunStatusNames[] = {{RunStatus::Running, "running"},
                                                    {RunStatus::Completed, "completed"},
                                                    {RunStatus::Stopped, "stopped"},
                                                    {RunStatus::Failed, "failed"}};

const nlohmann::json& at(const nlohmann::json& json, const char* key) {
  if (!json.is_object()) throw ConfigError("it holds " + std::string(json.type_name()) + ", not a JSON object");
  const auto found = json.find(key);
  if (found == json.end()) throw ConfigError(std::string("\"") + key + "\" is missing");
  return *found;
}

std::string text(const nlohmann::json& json, const char* key) {
  const nlohmann::json& value = at(json, key);
  if (!value.is_string()) throw ConfigError(std::string("\"") + key + "\" must be a string, got " + value.dump());
  return value.get<std::string>();
}

double number(const nlohmann::json& json, const char* key) {
  const nlohmann::json& value = at(json, key);
  if (!value.is_number()) throw ConfigError(std::string("\"") + key + "\" must be a number, got " + value.dump());
  return value.get<double>();
}

template <typename T>
T integer(const nlohmann::json& json, const char* key) {
  return integerOrThrow<T, ConfigError>(at(json, key), std::string("\"") + key + "\"");
}

}  // namespace

std::string runStatusName(RunStatus status) { return nameOf(kRunStatusNames, status); }

RunStatus parseRunStatus(const std::string& name) {
  if (const auto status = valueNamed(kRunStatusNames, name)) return *status;
  throw ConfigError("unknown run status \"" + name + "\"; a run is running, completed, stopped or failed");
}

nlohmann::json RunSummary::toJson() const {
  nlohmann::json json{{"version", version},
                      {"status", runStatusName(status)},
                      {"message", message},
                      {"devices", devices},
                      {"replicas", replicas},
                      {"processes", processes},
                      {"reproducible", notReproducible.empty()},
                      {"not_reproducible_because", notReproducible},
                      {"epochs_completed", epochsCompleted},
                      {"steps_completed", stepsCompleted},
                      {"steps_per_epoch", stepsPerEpoch},
                      {"train_samples", trainSamples},
                      {"classes", classes},
                      {"train_seconds", trainSeconds},
                      {"seconds_per_epoch", secondsPerEpoch},
                      {"images_per_second", imagesPerSecond}};
  for (const ConfigField& field : configFields()) {
    if (field.inSummary) json[field.key] = field.get(setup);
  }
  if (evaluation) {
    json.update(ensemble::toJson(*evaluation));
  } else {
    json["members"] = nlohmann::json::array();
    json["ensemble"] = nullptr;
  }
  return json;
}

RunSummary RunSummary::fromJson(const nlohmann::json& json, const std::string& origin) {
  RunSummary summary;
  try {
    summary.version = text(json, "version");
    summary.status = parseRunStatus(text(json, "status"));
    summary.message = text(json, "message");
    // The echoed settings, read as config.json's are; one a summary lacks keeps its default
    // (summaries written before precision and deterministic were echoed).
    at(json, "mode");  // echoed by every summary ever written: one without it is no summary
    for (const ConfigField& field : configFields()) {
      if (field.inSummary && json.contains(field.key)) field.set(summary.setup, json.at(field.key), "its setup");
    }
    summary.devices = text(json, "devices");
    summary.replicas = integer<int64_t>(json, "replicas");
    summary.processes = integer<int64_t>(json, "processes");
    if (json.contains("not_reproducible_because")) summary.notReproducible = text(json, "not_reproducible_because");
    summary.epochsCompleted = integer<int64_t>(json, "epochs_completed");
    summary.stepsCompleted = integer<int64_t>(json, "steps_completed");
    summary.stepsPerEpoch = json.contains("steps_per_epoch") ? integer<int64_t>(json, "steps_per_epoch") : 0;
    summary.trainSamples = json.contains("train_samples") ? integer<int64_t>(json, "train_samples") : 0;
    summary.classes = json.contains("classes") ? integer<int64_t>(json, "classes") : 10;
    summary.trainSeconds = number(json, "train_seconds");
    summary.secondsPerEpoch = number(json, "seconds_per_epoch");
    summary.imagesPerSecond = number(json, "images_per_second");
  } catch (const ConfigError& e) {  // also an unknown mode, model or status
    throw ConfigError(origin + ": " + e.what() + "; the run folder is damaged");
  }
  if (json.contains("ensemble") && !json.at("ensemble").is_null()) summary.evaluation = evaluationFromJson(json, origin);
  return summary;
}

RunSummary RunSummary::read(const std::string& path) {
  // What to do, beside what is wrong: the run's checkpoint holds what its summary says.
  const std::string remedy = "; `ensemble-lab-cli resume --run " + shellWord(std::filesystem::path(path).parent_path().string()) +
                             "` writes it again from the run's last checkpoint";
  try {
    return fromJson(RunDirectory::readJson(path), path);
  } catch (const ConfigError& e) {
    throw ConfigError(e.what() + remedy, e.field());
  } catch (const IoError& e) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) throw;  // unreadable for another reason (permissions): said as it is
    throw IoError(e.what() + remedy);
  }
}

}  // namespace ensemble
