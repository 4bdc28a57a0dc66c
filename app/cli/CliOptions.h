// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Command-line parsing for ensemble-lab-cli: a subcommand and its flags.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ensemble::cli {

/// A usage mistake (unknown subcommand or flag, missing value): exit code 2.
class UsageError final : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CliOptions {
  std::string command;  ///< devices, train, resume, eval, help, version, list-flags
  std::map<std::string, std::string> flags;  ///< "--lr" -> "0.1", without the dashes
  std::string helpFor;  ///< with command "help": the command `--help` followed, if any

  bool has(const std::string& flag) const { return flags.count(flag) != 0; }
  const std::string& value(const std::string& flag) const { return flags.at(flag); }
  /// Every value of a flag that may be given several times (--grid), in order.
  std::vector<std::string> values(const std::string& flag) const;
};

/// The value of `flag` as an integer, or as a number; ConfigError (exit 1) naming the flag
/// and its text otherwise.
int64_t parseInteger(const CliOptions& options, const std::string& flag);
double parseNumber(const CliOptions& options, const std::string& flag);

/// Parses argv. Accepts `--flag value` and `--flag=value`. Throws UsageError naming the
/// offending argument.
CliOptions parseCommandLine(const std::vector<std::string>& arguments);

/// Whether `flag` of `command` may be given several times (its values kept in order).
bool repeatable(const std::string& command, const std::string& flag);
/// Whether `flag` of `command` is a switch by its presence alone (no value).
bool takesNoValue(const std::string& command, const std::string& flag);

/// The commands, in the order the help gives them.
const std::vector<std::string>& commandNames();

/// The flags `command` accepts, without dashes, sorted.
std::vector<std::string> flagsOf(const std::string& command);

/// The help text (all subcommands and flags).
std::string usageText();

/// The part of usageText() on `command` (`ensemble-lab-cli predict --help`): its usage lines
/// and what follows them, and the exit statuses; usageText() where it names no command.
std::string commandUsageText(const std::string& command);

}  // namespace ensemble::cli
