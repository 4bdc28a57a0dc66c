// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliCompletion.h"

#include <algorithm>
#include <set>

#include "app/cli/CliOptions.h"
#include "core/config/ConfigFields.h"
#include "core/data/DatasetShift.h"
#include "core/data/OutOfDistributionSetNames.h"

namespace ensemble::cli {
namespace {

const std::vector<std::string> kDatasetNames{"fashion-mnist", "synthetic"};

/// The CLI's own flags whose value is a path: a file (or a folder: files lists both) or a
/// folder that must be one. Config fields' paths are with their values below.
const std::set<std::string> kFileFlags{"config", "out", "to", "table", "curves", "train", "test", "npz"};
const std::set<std::string> kFolderFlags{"run", "runs", "tensorboard", "resume"};

/// What the devices flag offers: the CPU, CPU replicas, every GPU, each GPU there is.
std::vector<std::string> deviceSpecs(const GpuCount& gpuCount) {
  std::vector<std::string> specs{"cpu", "cpu*4", "all"};
  const int gpus = gpuCount();
  for (int i = 0; i < gpus; ++i) specs.push_back("cuda:" + std::to_string(i));
  if (gpus > 0) specs.push_back("cuda:0*4");  // an ensemble of four on one GPU
  if (gpus > 1) specs.push_back("cuda*" + std::to_string(gpus));
  return specs;
}

/// The values `flag` of `command` takes where they are words, and the path kind it takes
/// (kCompleteFiles, kCompleteFolders) where it takes one.
std::vector<std::string> valuesOf(const std::string& command, const std::string& flag, const GpuCount& gpuCount) {
  if (kFileFlags.count(flag)) return {kCompleteFiles};
  if (kFolderFlags.count(flag)) return {kCompleteFolders};
  if (flag == "backend") return {"gloo", "nccl"};
  if (flag == "shift") {
    std::vector<std::string> kinds;
    for (const ShiftKind kind : {ShiftKind::Rotate, ShiftKind::Translate, ShiftKind::Noise, ShiftKind::Contrast}) {
      kinds.push_back(shiftKindName(kind) + ":");
    }
    return kinds;
  }
  if (flag == "grid" && command == "sweep") {
    std::vector<std::string> settings;
    for (const std::string& key : configKeys()) settings.push_back(key + "=");
    return settings;
  }
  if (flag == "ood" || flag == "dataset") {
    std::vector<std::string> values = kDatasetNames;
    // --ood also takes the sets made from the run itself (inverted, uniform-noise).
    if (flag == "ood") {
      for (const std::string& name : builtInOutOfDistributionSets()) values.push_back(name);
    }
    values.push_back(kCompleteFolders);
    return values;
  }
  const ConfigField* field = configFieldByFlag(flag);
  if (!field) return {};
  if (flag == "devices") return deviceSpecs(gpuCount);
  if (flag == "init-from") return {kCompleteFiles};  // an earlier run's folder, or .pt files
  if (field->kind == ConfigField::Kind::Choice) return field->choices;
  if (field->kind == ConfigField::Kind::Switch) return {"on", "off"};
  if (field->acceptsAuto) return {"auto"};
  return {};  // a number, a host: nothing to offer
}

bool startsWith(const std::string& text, const std::string& start) { return text.rfind(start, 0) == 0; }

std::vector<std::string> beginningWith(const std::vector<std::string>& candidates, const std::string& start) {
  std::vector<std::string> kept;
  for (const std::string& candidate : candidates) {
    // The path kinds are the shell's to match against the word.
    if (candidate == kCompleteFiles || candidate == kCompleteFolders || startsWith(candidate, start)) {
      kept.push_back(candidate);
    }
  }
  return kept;
}

/// A sweep axis's first value, "mode=s" -> "mode=single", where the setting's values are
/// words (a choice, on/off); none for numbers, or after a comma.
std::vector<std::string> gridValues(const std::string& command, const std::string& axis, const GpuCount& gpuCount) {
  const std::string name = axis.substr(0, axis.find('='));
  const ConfigField* field = configFieldByKey(name);
  if (!field) field = configFieldByFlag(name);
  if (!field || axis.find(',') != std::string::npos) return {};
  std::vector<std::string> values;
  for (const std::string& value : valuesOf(command, field->flag, gpuCount)) {
    if (value != kCompleteFiles && value != kCompleteFolders) values.push_back(name + "=" + value);
  }
  return beginningWith(values, axis);
}

}  // namespace

std::vector<std::string> completions(const std::vector<std::string>& words, const GpuCount& gpuCount) {
  if (words.empty()) return {};
  const std::string& current = words.back();
  if (words.size() == 1) {
    std::vector<std::string> first = commandNames();
    first.insert(first.end(), {"--help", "--version", "--list-flags"});
    return beginningWith(first, current);
  }
  const std::string& command = words.front();
  if (command == "--list-flags") return words.size() == 2 ? beginningWith(commandNames(), current) : std::vector<std::string>{};
  const std::vector<std::string> flags = flagsOf(command);
  if (flags.empty()) return {};
  const auto known = [&flags](const std::string& flag) { return std::find(flags.begin(), flags.end(), flag) != flags.end(); };
  // The value of the flag before it, where that flag takes one.
  const std::string& previous = words[words.size() - 2];
  if (startsWith(previous, "--") && previous.find('=') == std::string::npos) {
    const std::string flag = previous.substr(2);
    if (flag == "grid" && current.find('=') != std::string::npos) return gridValues(command, current, gpuCount);
    if (known(flag) && !takesNoValue(command, flag)) return beginningWith(valuesOf(command, flag, gpuCount), current);
  }
  // A value given as --flag=VALUE, as the parser takes it too.
  if (const std::size_t equals = current.find('='); startsWith(current, "--") && equals != std::string::npos) {
    const std::string flag = current.substr(2, equals - 2);
    if (!known(flag) || takesNoValue(command, flag)) return {};
    std::vector<std::string> values;
    for (const std::string& value : valuesOf(command, flag, gpuCount)) {
      const bool path = value == kCompleteFiles || value == kCompleteFolders;
      values.push_back(path ? value : current.substr(0, equals + 1) + value);
    }
    return beginningWith(values, current);
  }
  if (!current.empty() && !startsWith(current, "-")) return {};  // a stray word: nothing fits
  // The flags not given yet; a flag that repeats, again. Given as --flag or --flag=value.
  std::set<std::string> given;
  for (std::size_t i = 1; i + 1 < words.size(); ++i) {
    if (startsWith(words[i], "--")) given.insert(words[i].substr(2, words[i].find('=') - 2));
  }
  std::vector<std::string> offered;
  for (const std::string& flag : flags) {
    if (!given.count(flag) || repeatable(command, flag)) offered.push_back("--" + flag);
  }
  offered.push_back("--help");
  return beginningWith(offered, current);
}

}  // namespace ensemble::cli
