// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/Sweep.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/common/CanonicalPath.h"
#include "core/common/EnumNames.h"
#include "core/common/JsonErrorText.h"
#include "core/common/Error.h"
#include "core/common/LikelyName.h"
#include "core/common/TextFormat.h"
#include "core/common/FieldMention.h"
#include "core/common/JsonDuplicateKeys.h"
#include "core/io/AtomicFile.h"
#include "core/io/RemoveTree.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/runs/RunSummary.h"
#include "core/config/ConfigFields.h"

namespace ensemble {
namespace {

constexpr int kFormat = 1;
const char* const kFileName = "sweep.json";

constexpr EnumName<JobStatus> kJobStatusNames[] = {{JobStatus::Pending, "pending"},
                                                    {JobStatus::Running, "running"},
                                                    {JobStatus::Completed, "completed"},
                                                    {JobStatus::Failed, "failed"},
                                                    {JobStatus::Stopped, "stopped"}};


/// `text` as the JSON value of `field`, as its flag would give it.
nlohmann::json valueOf(const ConfigField& field, const std::string& text) {
  try {
    return field.parseText(text);  // the CLI's flags read the same way
  } catch (const ConfigError& error) {
    throw ConfigError("sweep grid " + std::string(field.key) + "=" + text + ": " + error.what(), field.key);
  }
}

/// `value` as typed: the text given, or the JSON value's own.
std::string typedText(const nlohmann::json& value, const std::vector<std::string>* texts, std::size_t index) {
  if (texts && index < texts->size()) return (*texts)[index];
  return value.is_string() ? value.get<std::string>() : value.dump();
}

/// Value `key` of point `index` of `axis` as it reads in a folder name: as typed, without
/// path separators or spaces.
std::string folderText(const SweepAxis& axis, std::size_t index, std::size_t key) {
  std::string text = typedText(axis.points[index][key], index < axis.texts.size() ? &axis.texts[index] : nullptr, key);
  for (char& c : text) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == '+';
    if (!plain) c = '_';
  }
  return text;
}

/// "007-lr=0.1-seed=2": the job's number and, per axis, the values of its point.
std::string jobName(std::size_t index, const std::vector<std::size_t>& choice, const std::vector<SweepAxis>& grid) {
  char number[16];
  std::snprintf(number, sizeof number, "%03zu", index + 1);
  std::string name = number;
  for (std::size_t a = 0; a < grid.size(); ++a) {
    for (std::size_t k = 0; k < grid[a].keys.size(); ++k) {
      name += "-" + grid[a].keys[k] + "=" + folderText(grid[a], choice[a], k);
    }
  }
  return name;
}

/// The setting named `name` (its config.json key or its flag) in grid `text`.
const ConfigField& settingNamed(const std::string& name, const std::string& text) {
  const ConfigField* field = configFieldByKey(name);
  if (!field) field = configFieldByFlag(name);
  if (!field) {
    throw ConfigError("sweep grid '" + text + "': '" + name + "' is not a setting" + didYouMean(name, configKeys()) +
                      "; the settings are " + commaList(configKeys()));
  }
  return *field;
}

/// `point` cut into `count` values at its last count - 1 colons ("cuda:0:256" in two:
/// "cuda:0", "256"); fewer parts where it has fewer colons.
std::vector<std::string> splitPoint(const std::string& point, std::size_t count) {
  std::vector<std::string> parts;
  std::size_t end = point.size();
  while (parts.size() + 1 < count) {
    const std::size_t colon = end == 0 ? std::string::npos : point.rfind(':', end - 1);
    if (colon == std::string::npos) break;
    parts.insert(parts.begin(), point.substr(colon + 1, end - colon - 1));
    end = colon;
  }
  parts.insert(parts.begin(), point.substr(0, end));
  return parts;
}

std::vector<std::string> splitList(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (;;) {
    const std::size_t next = text.find(separator, at);
    parts.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return parts;
    at = next + 1;
  }
}

}  // namespace

std::string jobStatusName(JobStatus status) { return nameOf(kJobStatusNames, status); }

std::string SweepAxis::name() const {
  std::string list;
  for (const std::string& key : keys) list += (list.empty() ? "" : ",") + key;
  return list;
}

bool SweepAxis::sets(const std::string& key) const { return std::find(keys.begin(), keys.end(), key) != keys.end(); }

std::string SweepAxis::pointText(std::size_t index) const {
  std::string text;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    text += (k ? ":" : "") + typedText(points[index][k], index < texts.size() ? &texts[index] : nullptr, k);
  }
  return text;
}

ExperimentConfig Sweep::configOf(const SweepJob& job) const {
  ExperimentConfig config = ExperimentConfig::fromJson(base, "the sweep's base config");
  config.merge(job.settings, "sweep job " + job.name);
  return config;
}

nlohmann::json Sweep::toJson() const {
  nlohmann::json axes = nlohmann::json::array(), list = nlohmann::json::array();
  for (const SweepAxis& axis : grid) {
    if (axis.keys.size() == 1) {  // one setting: as every sweep.json before paired settings
      nlohmann::json values = nlohmann::json::array();
      for (const auto& point : axis.points) values.push_back(point[0]);
      axes.push_back({{"key", axis.keys[0]}, {"values", values}});
    } else {
      axes.push_back({{"keys", axis.keys}, {"values", axis.points}});
    }
  }
  for (const SweepJob& job : jobs) {
    nlohmann::json item{{"name", job.name},
                        {"settings", job.settings},
                        {"status", jobStatusName(job.status)},
                        // mentions named as summary.json names them (Error.h), not left as {{key}}
                        {"message", phraseMessage(job.message, FieldNaming::Keys)}};
    // The message with its marks as well, so that a sweep read back (--resume, Run > Open
    // sweep) says it in its reader's words: flags in the CLI, labels in the window.
    if (job.message.find("{{") != std::string::npos) item["message_template"] = job.message;
    list.push_back(std::move(item));
  }
  return {{"format", kFormat}, {"base", base}, {"grid", axes}, {"jobs", list}};
}

Sweep Sweep::fromJson(const nlohmann::json& json, const std::string& origin) {
  const auto bad = [&](const std::string& why) {
    return ConfigError(origin + " is not a sweep EnsembleLab wrote (" + why + "); fix it, or start a new sweep with " +
                       mention::startSweep());
  };
  try {
    if (!json.is_object() || json.value("format", 0) != kFormat) throw bad("no format " + std::to_string(kFormat));
    Sweep sweep;
    sweep.base = json.at("base");
    for (const auto& item : json.at("grid")) {
      SweepAxis axis;
      if (item.contains("keys")) {
        axis.keys = item.at("keys").get<std::vector<std::string>>();
        axis.points = item.at("values").get<std::vector<std::vector<nlohmann::json>>>();
      } else {
        axis.keys = {item.at("key").get<std::string>()};
        for (const auto& value : item.at("values")) axis.points.push_back({value});
      }
      for (const auto& point : axis.points) {
        if (point.size() != axis.keys.size()) {
          throw bad("grid " + axis.name() + " gives " + std::to_string(point.size()) + " of its " +
                    std::to_string(axis.keys.size()) + " values in a point");
        }
      }
      sweep.grid.push_back(std::move(axis));
    }
    // Lists by their names: at() on a text would say only "cannot use at() with string".
    for (const char* list : {"grid", "jobs"}) {
      if (!json.at(list).is_array()) throw bad("\"" + std::string(list) + "\" is not a list");
    }
    for (const auto& item : json.at("jobs")) {
      SweepJob job;
      job.name = item.at("name").get<std::string>();
      job.settings = item.at("settings");
      job.message = item.value("message_template", item.value("message", ""));
      const std::string status = item.at("status").get<std::string>();
      const std::optional<JobStatus> known = valueNamed(kJobStatusNames, status);
      if (known) job.status = *known;
      // A job's name is a folder inside the sweep's: never a path out of it ("..", "a/b").
      const bool folderName = !job.name.empty() && job.name != "." && job.name != ".." &&
                              job.name.find_first_of("/\\") == std::string::npos;
      if (!known || !folderName) throw bad("job '" + job.name + "'");
      sweep.jobs.push_back(std::move(job));
    }
    return sweep;
  } catch (const nlohmann::json::exception& e) {
    throw bad(plainJsonError(e));
  }
}

SweepAxis parseSweepAxis(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw ConfigError("sweep grid '" + text + "' is not SETTING=VALUE,VALUE (e.g. lr=0.05,0.1) or SETTING,SETTING=V:V,V:V "
                      "(e.g. batch_size,lr=256:0.1,512:0.2)");
  }
  SweepAxis axis;
  std::vector<const ConfigField*> fields;
  for (const std::string& name : splitList(text.substr(0, equals), ',')) {
    const ConfigField& field = settingNamed(name, text);
    if (axis.sets(field.key)) throw ConfigError("sweep grid '" + text + "' names " + field.key + " twice; name it once");
    axis.keys.push_back(field.key);
    fields.push_back(&field);
  }
  const bool paired = fields.size() > 1;
  for (const std::string& point : splitList(text.substr(equals + 1), ',')) {
    const std::vector<std::string> values = splitPoint(point, fields.size());
    if (values.size() < fields.size()) {
      throw ConfigError("sweep grid '" + text + "': '" + point + "' gives " + std::to_string(values.size()) + " of the " +
                        std::to_string(fields.size()) + " values of " + axis.name() +
                        "; give one for each, joined by ':' (e.g. batch_size,lr=256:0.1,512:0.2)");
    }
    std::vector<nlohmann::json> parsed;
    for (std::size_t k = 0; k < fields.size(); ++k) {
      if (values[k].empty() && fields[k]->kind != ConfigField::Kind::Text) {
        throw ConfigError("sweep grid '" + text + "' has an empty value for " + fields[k]->key +
                          (paired ? " in '" + point + "'" : ""));
      }
      try {
        parsed.push_back(valueOf(*fields[k], values[k]));
      } catch (const ConfigError& e) {
        // A value holding a colon after the first cuts the point wrongly: say how it is cut.
        const bool extraColons = paired && std::count(point.begin(), point.end(), ':') >= long(fields.size());
        if (!extraColons) throw;
        throw ConfigError(std::string(e.what()) + " (a point is cut at its last colons, so only the first setting's "
                          "value may hold one: name the setting whose values hold ':' first)", e.field());
      }
    }
    axis.points.push_back(std::move(parsed));
    axis.texts.push_back(values);
  }
  return axis;
}

std::string whyValuesRepeat(const SweepAxis& axis) {
  for (std::size_t i = 0; i < axis.points.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (axis.points[i] != axis.points[j]) continue;  // as parsed: JSON compares numbers by value
      const std::string first = axis.pointText(j), second = axis.pointText(i);
      const std::string as = first == second ? "" : " (as " + first + " and " + second + ")";
      return "sweep grid " + axis.name() + " gives " + first + " twice" + as +
             ", which would train the same job twice; give each " + (axis.keys.size() > 1 ? "pair" : "value") + " once";
    }
  }
  return "";
}

Sweep planSweep(const ExperimentConfig& base, const std::vector<SweepAxis>& grid) {
  if (grid.empty()) throw ConfigError("a sweep needs at least one grid axis, e.g. lr=0.05,0.1");
  for (std::size_t a = 0; a < grid.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      for (const std::string& key : grid[a].keys) {
        if (grid[b].sets(key)) throw ConfigError("sweep grid sets " + key + " twice; give its values once", key);
      }
    }
    if (const std::string why = whyValuesRepeat(grid[a]); !why.empty()) throw ConfigError(why, grid[a].keys[0]);
  }
  Sweep sweep;
  sweep.base = base.toJson();
  sweep.base.erase("version");
  sweep.grid = grid;
  std::size_t count = 1;
  for (const SweepAxis& axis : grid) count *= axis.points.size();
  for (std::size_t index = 0; index < count; ++index) {
    SweepJob job;
    job.settings = nlohmann::json::object();
    std::size_t rest = index;
    std::vector<std::size_t> choice(grid.size());
    for (std::size_t a = grid.size(); a-- > 0;) {  // the last axis varies fastest
      choice[a] = rest % grid[a].points.size();
      for (std::size_t k = 0; k < grid[a].keys.size(); ++k) job.settings[grid[a].keys[k]] = grid[a].points[choice[a]][k];
      rest /= grid[a].points.size();
    }
    job.name = jobName(index, choice, grid);
    try {
      sweep.configOf(job).validate();
    } catch (const ConfigError& e) {
      std::string values;
      for (const SweepAxis& axis : grid) {
        for (const std::string& key : axis.keys) values += (values.empty() ? "" : " ") + key + "=" + job.settings[key].dump();
      }
      throw ConfigError("sweep job " + job.name + " (" + values + "): " + e.what(), e.field());
    }
    sweep.jobs.push_back(std::move(job));
  }
  return sweep;
}

void writeSweep(const std::string& folder, const Sweep& sweep) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  // Said as it is (a read-only disk), not as the missing folder writing into it then meets.
  if (ec) throw IoError(describeIoFailure("cannot create sweep folder", folder, ec.value()));
  writeFileAtomically(folder + "/" + kFileName, sweep.toJson().dump(2) + "\n");
}

bool holdsSweep(const std::string& folder) {
  std::error_code ec;
  return std::filesystem::exists(folder + "/" + kFileName, ec);
}

std::string sweepOwningFile(const std::string& file) {
  const std::filesystem::path target(canonicalPath(file));
  if (target.filename() != kFileName) return "";
  const std::string folder = target.parent_path().string();
  return holdsSweep(folder) ? folder : "";
}

RunWriterLock lockSweep(const std::string& folder) {
  std::optional<RunWriterLock> lock = RunWriterLock::tryTake(folder);
  if (!lock) {
    throw ConfigError("sweep " + folder + " is being run by another process (`ensemble-lab-cli sweep`, or a "
                      "window's Sweep tab): two would train the same jobs and each record the other's as failed. "
                      "Wait for it to end, or stop it (Ctrl+C in its terminal, or close the window that runs it), "
                      "then continue it with " + mention::continueSweep(folder));
  }
  return std::move(*lock);
}

void clearJobWithoutCheckpoint(const std::string& run) {
  RunWriterLock::refuseIfHeldElsewhere(run);
  std::error_code ec;
  removeTree(run, ec);
}

std::vector<SweepJob> retryFailedJobs(Sweep& sweep) {
  std::vector<SweepJob> retried;
  for (SweepJob& job : sweep.jobs) {
    if (job.status != JobStatus::Failed) continue;
    retried.push_back(job);
    job.status = JobStatus::Pending;
    job.message.clear();
  }
  return retried;
}

Sweep readSweep(const std::string& folder) {
  const std::string path = folder + "/" + kFileName;
  std::error_code ec;
  if (!std::filesystem::exists(folder, ec)) {
    throw ConfigError("sweep folder " + folder + " does not exist; give the folder a sweep was started in, or start "
                      "one with " + mention::startSweep());
  }
  // As a run's JSON files (RunDirectory::readJson): one far larger than any sweep writes is
  // none EnsembleLab wrote, refused before the window or the CLI reads it whole.
  RunDirectory::refuseOversizedJson(path, "a sweep.json is kilobytes (megabytes for thousands of jobs)",
                                    "start a new sweep with " + mention::startSweep());
  std::ifstream in(path);
  if (!in) throw ConfigError(folder + " holds no sweep (no " + kFileName + "); start one with " + mention::startSweep());
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json json;
  try {
    json = parseRefusingDuplicateKeys(text.str(), path);
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(path + ": " + plainJsonError(e) + "; fix it, or start a new sweep with " + mention::startSweep());
  }
  return Sweep::fromJson(json, path);
}

std::optional<double> jobTestAccuracy(const std::string& folder, const SweepJob& job) {
  try {
    const RunSummary summary = RunSummary::read(RunDirectory(folder + "/" + job.name).summaryPath());
    if (summary.evaluation) return summary.evaluation->ensemble.accuracy;
  } catch (const std::exception&) {
    // Not written yet, or damaged: the job's state says what happened to it.
  }
  return std::nullopt;
}

}  // namespace ensemble
