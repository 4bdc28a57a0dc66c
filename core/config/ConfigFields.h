// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one declaration of every ExperimentConfig field a person sets: its config.json key,
// its command-line flag, its label in the window and its help text. config.json's known
// keys, the CLI's flags and help, and the form's labels all read this table, so a field
// is declared once. Torch-free and Qt-free.
#include <optional>
#include <string>
#include <vector>

namespace ensemble {

struct ConfigField {
  /// How a flag's text becomes the field's JSON value.
  enum class Kind { Text, Integer, NonNegativeInteger, Number, Switch };

  const char* key;        ///< in config.json: "batch_size"
  const char* flag;       ///< on the command line, without its dashes: "batch-size"
  const char* label;      ///< in the window's form: "Batch size"
  const char* valueName;  ///< in the help text: "N", "X", "NAME"
  const char* help;       ///< the help text; '\n' starts a continuation line
  Kind kind;
};

/// A Switch field's text: true for on, true, yes and 1; false for off, false, no and 0;
/// nothing for any other text.
std::optional<bool> parseSwitch(const std::string& text);

/// How a front end names a setting in a message (Error.h, FieldMention.h).
enum class FieldNaming {
  Flags,   ///< the CLI: "--lr", "--out DIR", "ensemble-lab-cli resume --run DIR"
  Labels,  ///< the window: "\"Learning rate\"", "another runs folder", "Run > Resume selected run"
  Keys,    ///< files (summary.json): "lr", "out", and the CLI's resume command
};

/// `message` with its mentions (FieldMention.h) in `naming`'s words.
std::string phraseMessage(const std::string& message, FieldNaming naming);

/// Every field, in the order of the help text.
const std::vector<ConfigField>& configFields();
/// The field stored under config.json key `key`, or nullptr.
const ConfigField* configFieldByKey(const std::string& key);
/// The field set by command-line flag `flag` (without dashes), or nullptr.
const ConfigField* configFieldByFlag(const std::string& flag);

}  // namespace ensemble
