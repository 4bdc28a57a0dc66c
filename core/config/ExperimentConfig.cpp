// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/EnumNames.h"
#include "core/config/RunMode.h"
#include "core/config/ExperimentConfig.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/common/JsonInteger.h"
#include "core/models/ModelRegistry.h"
#include "core/config/ConfigFields.h"

namespace ensemble {
namespace {

using nlohmann::json;

template <typename T>
void read(const json& object, const char* key, T& value, const std::string& origin,
          const char* expected) {
  const auto it = object.find(key);
  if (it == object.end()) return;
  try {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!fitsInteger<T>(*it)) throw ConfigError(origin + ": \"" + key + "\" must be " + expected +
                                                  " in range, got " + it->dump());
    }
    value = it->get<T>();
  } catch (const json::exception&) {
    throw ConfigError(origin + ": \"" + key + "\" must be " + expected + ", got " + it->dump());
  }
}

/// config.json's keys: every field of the table (ConfigFields.h), and the version that wrote it.
bool isKnownKey(const std::string& key) { return key == "version" || configFieldByKey(key) != nullptr; }

std::string knownKeys() {
  std::string list;
  for (const ConfigField& field : configFields()) list += std::string(list.empty() ? "" : ", ") + field.key;
  return list + ", version";
}

}  // namespace

constexpr EnumName<TrainingMode> kModeNames[] = {
    {TrainingMode::Single, "single"}, {TrainingMode::Ensemble, "ensemble"}, {TrainingMode::DataParallel, "data-parallel"}};
constexpr EnumName<MemberForm> kMemberFormNames[] = {
    {MemberForm::Auto, "auto"}, {MemberForm::Separate, "separate"}, {MemberForm::Stacked, "stacked"}};
constexpr EnumName<Precision> kPrecisionNames[] = {
    {Precision::Fp32, "fp32"}, {Precision::Tf32, "tf32"}, {Precision::Bf16, "bf16"}};

std::string modeName(TrainingMode mode) { return nameOf(kModeNames, mode); }

TrainingMode parseMode(const std::string& name) {
  if (const auto mode = valueNamed(kModeNames, name)) return *mode;
  throw ConfigError("unknown mode '" + name + "'; choose " + choicesOf(kModeNames));
}

std::string memberFormName(MemberForm form) { return nameOf(kMemberFormNames, form); }

MemberForm parseMemberForm(const std::string& name) {
  if (const auto form = valueNamed(kMemberFormNames, name)) return *form;
  throw ConfigError("unknown member form '" + name + "'; choose " + choicesOf(kMemberFormNames), "member_form");
}

std::string precisionName(Precision precision) { return nameOf(kPrecisionNames, precision); }

Precision parsePrecision(const std::string& name) {
  if (const auto precision = valueNamed(kPrecisionNames, name)) return *precision;
  throw ConfigError("unknown precision '" + name + "'; choose fp32 (default), tf32 (CUDA) or bf16", "precision");
}

void ExperimentConfig::validate() const {
  if (dataset.empty()) throw ConfigError("dataset is empty; use fashion-mnist, synthetic or a folder", "dataset");
  if (!std::isfinite(learningRate) || learningRate <= 0) {
    std::ostringstream value;
    value << learningRate;
    throw ConfigError("learning rate (lr) must be a positive finite number, got " + value.str() +
                      "; the default is 0.1",
                      "lr");
  }
  if (!std::isfinite(momentum) || momentum < 0 || momentum >= 1) {
    std::ostringstream value;
    value << momentum;
    throw ConfigError("momentum must be in [0, 1), got " + value.str() + "; the default is 0.9", "momentum");
  }
  const auto positive = [](int64_t value, const char* name, const char* hint, const char* key) {
    if (value < 1) {
      throw ConfigError(std::string(name) + " must be at least 1, got " + std::to_string(value) +
                        hint, key);
    }
  };
  positive(batchSize, "batch size (batch_size)", "; the default is 128", "batch_size");
  positive(epochs, "epochs", "", "epochs");
  positive(logEvery, "log_every", "", "log_every");
  positive(evalBatchSize, "eval_batch_size", "", "eval_batch_size");
  if (trainLimit < 0) throw ConfigError("train_limit must be 0 (all) or positive, got " + std::to_string(trainLimit), "train_limit");
  if (testLimit < 0) throw ConfigError("test_limit must be 0 (all) or positive, got " + std::to_string(testLimit), "test_limit");
  if (memoryBudgetMb < 0) {
    throw ConfigError("memory budget (memory_budget_mb) must be 0 (none) or a positive number of MiB, got " +
                      std::to_string(memoryBudgetMb),
                      "memory_budget_mb");
  }
  if (memberForm == MemberForm::Stacked && mode != TrainingMode::Ensemble) {
    throw ConfigError("member form 'stacked' trains ensemble members as one network; it needs mode "
                      "ensemble, not " + modeName(mode), "member_form");
  }
  if (memberForm == MemberForm::Stacked && model != ModelKind::Cnn) {
    throw ConfigError("member form 'stacked' is built for the cnn model; train " + modelName(model) +
                      " members with member form 'separate'", "member_form");
  }
  if (!initFrom.empty() && memberForm == MemberForm::Stacked) {
    throw ConfigError(mention::field("init_from") + " loads one network per member; use member form 'separate' with it", "init_from");
  }
  if (RunMode::of(mode).replicasAreOneModel() && initFromFiles().size() > 1) {
    throw ConfigError(mention::field("init_from") + " names " + std::to_string(initFromFiles().size()) +
                      " files, but data-parallel trains one model; give one file", "init_from");
  }
  for (const std::string& file : initFromFiles()) {
    if (file.empty()) throw ConfigError(mention::field("init_from") + " '" + initFrom + "' has an empty file name", "init_from");
  }
  if (checkpointEvery < 0) {
    throw ConfigError("checkpoint_every must be 0 (epoch ends only) or positive, got " +
                      std::to_string(checkpointEvery), "checkpoint_every");
  }
  if (evalEvery < 0) {
    throw ConfigError("eval_every must be 0 (epoch ends only) or positive, got " + std::to_string(evalEvery),
                      "eval_every");
  }
}

std::vector<std::string> ExperimentConfig::initFromFiles() const {
  std::vector<std::string> files;
  if (initFrom.empty()) return files;
  std::size_t at = 0;
  for (;;) {
    const std::size_t comma = initFrom.find(',', at);
    files.push_back(initFrom.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return files;
    at = comma + 1;
  }
}

std::string ExperimentConfig::effectiveDevices(int cudaCount) const {
  if (!devices.empty()) return devices;
  return RunMode::of(mode).defaultDevices(cudaCount);
}

nlohmann::json ExperimentConfig::toJson() const {
  return json{{"dataset", dataset},
              {"model", modelName(model)},
              {"mode", modeName(mode)},
              {"devices", devices},
              {"lr", learningRate},
              {"momentum", momentum},
              {"batch_size", batchSize},
              {"epochs", epochs},
              {"seed", seed},
              {"train_limit", trainLimit},
              {"test_limit", testLimit},
              {"checkpoint_every", checkpointEvery},
              {"log_every", logEvery},
              {"eval_every", evalEvery},
              {"eval_batch_size", evalBatchSize},
              {"memory_budget_mb", memoryBudgetMb},
              {"member_form", memberFormName(memberForm)},
              {"precision", precisionName(precision)},
              {"deterministic", deterministic},
              {"init_from", initFrom},
              {"version", ENSEMBLELAB_VERSION}};
}

void ExperimentConfig::merge(const nlohmann::json& object, const std::string& origin) {
  if (!object.is_object()) {
    throw ConfigError(origin + " must hold a JSON object such as {\"lr\": 0.1}, got " +
                      std::string(object.type_name()));
  }
  for (const auto& item : object.items()) {
    if (!isKnownKey(item.key())) {
      throw ConfigError(origin + ": unknown key \"" + item.key() + "\"; known keys are " + knownKeys());
    }
  }
  std::string modeText = modeName(mode);
  read(object, "dataset", dataset, origin, "a string");
  std::string modelText = modelName(model);
  read(object, "model", modelText, origin, "a string");
  read(object, "mode", modeText, origin, "a string");
  read(object, "devices", devices, origin, "a string");
  read(object, "lr", learningRate, origin, "a number");
  read(object, "momentum", momentum, origin, "a number");
  read(object, "batch_size", batchSize, origin, "an integer");
  read(object, "epochs", epochs, origin, "an integer");
  read(object, "seed", seed, origin, "a non-negative integer");
  read(object, "train_limit", trainLimit, origin, "an integer");
  read(object, "test_limit", testLimit, origin, "an integer");
  read(object, "checkpoint_every", checkpointEvery, origin, "an integer");
  read(object, "log_every", logEvery, origin, "an integer");
  read(object, "eval_every", evalEvery, origin, "an integer");
  read(object, "eval_batch_size", evalBatchSize, origin, "an integer");
  read(object, "memory_budget_mb", memoryBudgetMb, origin, "an integer");
  std::string memberFormText = memberFormName(memberForm), precisionText = precisionName(precision);
  read(object, "member_form", memberFormText, origin, "a string");
  read(object, "precision", precisionText, origin, "a string");
  read(object, "init_from", initFrom, origin, "a string");
  read(object, "deterministic", deterministic, origin, "true or false");
  mode = parseMode(modeText);
  model = parseModel(modelText);
  memberForm = parseMemberForm(memberFormText);
  precision = parsePrecision(precisionText);
}


ExperimentConfig ExperimentConfig::fromJson(const nlohmann::json& object, const std::string& origin) {
  ExperimentConfig config;
  config.merge(object, origin);
  return config;
}

ExperimentConfig ExperimentConfig::fromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot open config file " + path + ": " + std::strerror(errno));
  json object;
  try {
    object = json::parse(in);
  } catch (const json::parse_error& e) {
    throw ConfigError("config file " + path + " is not valid JSON (at byte " +
                      std::to_string(e.byte) + "); fix it, or write it again by starting a run (" + mention::startRun() + ")");
  } catch (const json::exception& e) {  // found by fuzzing: a number too large for a double
    throw ConfigError("config file " + path + " holds a value JSON cannot represent (" + e.what() +
                      "); fix it, or write it again by starting a run (" + mention::startRun() + ")");
  }
  return fromJson(object, path);
}

}  // namespace ensemble
