// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one declaration of every ExperimentConfig setting a person sets, modelled on Qt
// Creator's AspectContainer: its config.json key, command-line flag, label in the window,
// type, help text, whether the form shows it, how it is read from and written to a config,
// and its validator with its message. config.json reading and writing
// (ExperimentConfig::toJson/merge/validate), summary.json's echo of the setup, the CLI's
// flags and --help, the sweep grid's values, and the form (its widgets, their order,
// defaults, values, saved setup and checks) all go through this table; a setting's default
// is the one ExperimentConfig's member is initialised with. Adding a setting is one record
// here plus the code that uses it (tests/SettingSamples.h then asks for its row). Qt-free.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ensemble {

struct ExperimentConfig;

struct ConfigField {
  /// The setting's type: what config.json holds and what a flag's text must be.
  enum class Kind { Text, Choice, Integer, NonNegativeInteger, Number, Switch };

  const char* key;        ///< in config.json: "batch_size"
  const char* flag;       ///< on the command line, without its dashes: "batch-size"
  const char* label;      ///< in the window's form: "Batch size"
  const char* valueName;  ///< in the help text: "N", "X", "NAME"
  /// The help text; '\n' starts a continuation line, "{default}" stands for the default.
  const char* help;
  Kind kind;
  bool inForm;                       ///< the window's Experiment form sets it
  bool inSummary = false;            ///< summary.json echoes it (the setup at a glance)
  std::vector<std::string> choices;  ///< a Choice's names, in the order they are offered
  /// The value as config.json holds it.
  std::function<nlohmann::json(const ExperimentConfig&)> get;
  /// Sets it from config.json's value; throws ConfigError naming `origin` and the key for
  /// a value of the wrong type or an unknown choice.
  std::function<void(ExperimentConfig&, const nlohmann::json&, const std::string& origin)> set;
  /// Why the setting's value in a config is invalid, with the valid range; empty when
  /// valid. Rules between settings are ExperimentConfig::validate's.
  std::function<std::string(const ExperimentConfig&)> check;
  /// An Integer that may also be the word auto (config.json holds "auto"), resolved when the
  /// devices are known.
  bool acceptsAuto = false;

  /// The value a default ExperimentConfig holds.
  nlohmann::json defaultValue() const;
  /// The help text with its default written in.
  std::string helpText() const;
  /// A value typed as text (a flag's, a sweep grid's) as its JSON: throws ConfigError
  /// naming the setting ({{key}}) and what it expects.
  nlohmann::json parseText(const std::string& text) const;
};

/// A Switch field's text: true for on, true, yes and 1; false for off, false, no and 0;
/// nothing for any other text.
std::optional<bool> parseSwitch(const std::string& text);

/// How a front end names a setting in a message (Error.h, FieldMention.h).
enum class FieldNaming {
  Flags,   ///< the CLI: "--lr", "--out DIR", "ensemble-lab-cli resume --run DIR"
  Labels,  ///< the window: "\"Learning rate\"", "another runs folder (ensemble-lab --runs DIR)", "Run > Resume selected run"
  Keys,    ///< files (summary.json): "lr", "out", and the CLI's resume command
};

/// `message` with its mentions (FieldMention.h) in `naming`'s words. `outputMention`, where
/// given, is what the command at hand writes to, said in place of the run folder's mention
/// ("--out FILE.csv" for the CLI's predict, which writes no run folder).
std::string phraseMessage(const std::string& message, FieldNaming naming, const std::string& outputMention = "");

/// Every field, in the order of the help text.
const std::vector<ConfigField>& configFields();
/// Every field's config.json key, in that order.
std::vector<std::string> configKeys();
/// The field stored under config.json key `key`, or nullptr.
const ConfigField* configFieldByKey(const std::string& key);
/// The field set by command-line flag `flag` (without dashes), or nullptr.
const ConfigField* configFieldByFlag(const std::string& flag);

}  // namespace ensemble
