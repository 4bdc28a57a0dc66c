// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/config/ExperimentConfig.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/common/EnumNames.h"
#include "core/common/JsonErrorText.h"
#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/common/JsonDuplicateKeys.h"
#include "core/common/LikelyName.h"
#include "core/common/TextFormat.h"
#include "core/config/ConfigFields.h"
#include "core/config/RunMode.h"
#include "core/models/ModelRegistry.h"

namespace ensemble {
namespace {

using nlohmann::json;

/// config.json's keys: every field of the table (ConfigFields.h), and the version that wrote it.
bool isKnownKey(const std::string& key) { return key == "version" || configFieldByKey(key) != nullptr; }

std::vector<std::string> knownKeys() {
  std::vector<std::string> keys = configKeys();
  keys.push_back("version");
  return keys;
}

}  // namespace

// In the order they are offered: the default first.
constexpr EnumName<TrainingMode> kModeNames[] = {
    {TrainingMode::Ensemble, "ensemble"}, {TrainingMode::Single, "single"}, {TrainingMode::DataParallel, "data-parallel"}};
constexpr EnumName<MemberForm> kMemberFormNames[] = {
    {MemberForm::Auto, "auto"}, {MemberForm::Separate, "separate"}, {MemberForm::Stacked, "stacked"}};
constexpr EnumName<CudaGraphs> kCudaGraphsNames[] = {
    {CudaGraphs::Auto, "auto"}, {CudaGraphs::On, "on"}, {CudaGraphs::Off, "off"}};
constexpr EnumName<LrSchedule> kLrScheduleNames[] = {{LrSchedule::Constant, "constant"}, {LrSchedule::Cosine, "cosine"},
                                                     {LrSchedule::Step, "step"}};
constexpr EnumName<Precision> kPrecisionNames[] = {
    {Precision::Fp32, "fp32"}, {Precision::Tf32, "tf32"}, {Precision::Bf16, "bf16"}};

std::string modeName(TrainingMode mode) { return nameOf(kModeNames, mode); }
std::vector<std::string> modeNames() { return namesOf(kModeNames); }
std::vector<std::string> memberFormNames() { return namesOf(kMemberFormNames); }
std::vector<std::string> precisionNames() { return namesOf(kPrecisionNames); }
std::vector<std::string> cudaGraphsNames() { return namesOf(kCudaGraphsNames); }

std::string cudaGraphsName(CudaGraphs graphs) { return nameOf(kCudaGraphsNames, graphs); }
std::string lrScheduleName(LrSchedule schedule) { return nameOf(kLrScheduleNames, schedule); }
std::vector<std::string> lrScheduleNames() { return namesOf(kLrScheduleNames); }

LrSchedule parseLrSchedule(const std::string& name) {
  if (const auto schedule = valueNamed(kLrScheduleNames, name)) return *schedule;
  throw ConfigError("unknown " + mention::field("lr_schedule") + " '" + name + "'; choose " + choicesOf(kLrScheduleNames),
                    "lr_schedule");
}

CudaGraphs parseCudaGraphs(const std::string& name) {
  if (const auto graphs = valueNamed(kCudaGraphsNames, name)) return *graphs;
  if (const std::optional<bool> on = parseSwitch(name)) return *on ? CudaGraphs::On : CudaGraphs::Off;
  throw ConfigError("unknown " + mention::field("cuda_graphs") + " '" + name + "'; choose " +
                        choicesOf(kCudaGraphsNames), "cuda_graphs");
}

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
  // Each setting's own rule (ConfigFields.cpp), then the rules between settings.
  for (const ConfigField& field : configFields()) {
    if (const std::string problem = field.check(*this); !problem.empty()) throw ConfigError(problem, field.key);
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
  if (!initFrom.empty() && initStd > 0) {
    throw ConfigError(mention::field("init_std") + " draws the initial weights and " + mention::field("init_from") +
                      " loads them: give one of the two", "init_std");
  }
  if (RunMode::of(mode).replicasAreOneModel() && initFromFiles().size() > 1) {
    throw ConfigError(mention::field("init_from") + " names " + std::to_string(initFromFiles().size()) +
                      " files, but data-parallel trains one model; give one file", "init_from");
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

std::string ExperimentConfig::absoluteInitFrom() const {
  std::string joined;
  for (const std::string& file : initFromFiles()) {
    if (!joined.empty()) joined += ',';
    std::error_code ec;
    const std::filesystem::path absolute = std::filesystem::absolute(file, ec);
    joined += ec || file.empty() ? file : absolute.lexically_normal().string();
  }
  return joined;
}

int64_t evalBatchSizeFor(int64_t setting, bool everyDeviceIsGpu) {
  if (setting != kAutoEvalBatchSize) return setting;
  return everyDeviceIsGpu ? kGpuEvalBatchSize : kCpuEvalBatchSize;
}

std::string ExperimentConfig::effectiveDevices(int cudaCount) const {
  if (!devices.empty()) return devices;
  return RunMode::of(mode).defaultDevices(cudaCount);
}

nlohmann::json ExperimentConfig::toJson() const {
  json object{{"version", ENSEMBLELAB_VERSION}};
  for (const ConfigField& field : configFields()) object[field.key] = field.get(*this);
  return object;
}

void ExperimentConfig::merge(const nlohmann::json& object, const std::string& origin) {
  if (!object.is_object()) {
    throw ConfigError(origin + " must hold a JSON object such as {\"lr\": 0.1}, got " +
                      std::string(object.type_name()));
  }
  for (const auto& item : object.items()) {
    if (!isKnownKey(item.key())) {
      throw ConfigError(origin + ": unknown key \"" + item.key() + "\"" +
                        didYouMean(item.key(), knownKeys(), "\"", "\"") + "; known keys are " + commaList(knownKeys()));
    }
  }
  for (const ConfigField& field : configFields()) {
    if (const auto it = object.find(field.key); it != object.end()) field.set(*this, *it, origin);
  }
}

ExperimentConfig ExperimentConfig::fromJson(const nlohmann::json& object, const std::string& origin) {
  ExperimentConfig config;
  config.merge(object, origin);
  return config;
}

/// What to do about a damaged config file. (It had said to write it again by starting a
/// run, which makes a new run folder and never rewrites this file.)
const char* const kFixConfig = "fix it in a text editor: any run folder's config.json shows the format";

ExperimentConfig ExperimentConfig::fromFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {  // it had read as "not valid JSON (at byte 1)"
    const std::string inside = (std::filesystem::path(path) / "config.json").string();
    throw ConfigError("config file " + path + " is a folder; a config is a JSON file, such as a run folder's "
                      "config.json" + (std::filesystem::is_regular_file(inside, ec) ? " (" + inside + " is one)" : ""));
  }
  std::ifstream in(path);
  if (!in) throw ConfigError("cannot open config file " + path + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  json object;
  try {
    object = parseRefusingDuplicateKeys(text.str(), "config file " + path);
  } catch (const json::parse_error& e) {
    throw ConfigError("config file " + path + " is not valid JSON (at byte " +
                      std::to_string(e.byte) + "); " + kFixConfig);
  } catch (const json::exception& e) {  // found by fuzzing: a number too large for a double
    throw ConfigError("config file " + path + " holds a value JSON cannot represent (" + plainJsonError(e) +
                      "); " + kFixConfig);
  }
  return fromJson(object, path);
}

}  // namespace ensemble
