// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliOptions.h"

#include <algorithm>
#include <set>

#include "core/common/Error.h"
#include "core/common/LikelyName.h"
#include "core/common/NumberText.h"
#include "core/common/TextFormat.h"
#include "core/config/ConfigFields.h"

namespace ensemble::cli {
namespace {

/// A flag of the CLI's own (not a config field): what it takes and what it does.
struct CliFlag {
  const char* name;
  const char* valueName;
  const char* help;
};

const CliFlag kConfigFile{"config", "FILE.json", "start from a config file (flags override it)"};
const CliFlag kOut{"out", "DIR", "run folder (default: ~/.local/share/ensemble-lab/runs/<name>)"};
const CliFlag kRun{"run", "DIR", "the run folder"};
/// Flags that may be given several times; their values are kept in order.
const char kRepeatSeparator = '\n';

/// The process group's flags (train and resume).
const std::vector<CliFlag>& groupFlags() {
  static const std::vector<CliFlag> flags{
      {"world-size", "N", "processes in the run (default 1)"},
      {"rank", "R", "this process, 0..N-1; rank 0 writes the run folder"},
      {"master-addr", "HOST", "host of rank 0 (default 127.0.0.1)"},
      {"master-port", "P", "its rendezvous port (default 29500)"},
      {"backend", "NAME", "gloo (CPU, default) or nccl (GPU builds with NCCL)"},
      {"timeout", "SECONDS", "wait this long for a missing peer, then name it (300)"}};
  return flags;
}

/// The config fields `eval` may change: it evaluates a saved run on other test data.
const char* const kEvalFields[] = {"dataset", "test-limit"};

/// Each command's flags, from the declarations above and the config fields' table.
const std::map<std::string, std::set<std::string>>& flagsByCommand() {
  static const std::map<std::string, std::set<std::string>> flags = [] {
    std::set<std::string> train{kConfigFile.name, kOut.name}, resume{kRun.name}, eval{kRun.name, "ood", "shift"},
        predict{kRun.name, "out", "shift"};
    const std::set<std::string> exportFlags{kRun.name, "to", "tensorboard", "runs", "table", "curves"};
    for (const ConfigField& field : configFields()) train.insert(field.flag);
    std::set<std::string> sweep = train;  // one process: no group flags
    sweep.insert({"grid", "resume"});
    for (const CliFlag& flag : groupFlags()) {
      train.insert(flag.name);
      resume.insert(flag.name);
    }
    for (const char* flag : kEvalFields) {
      eval.insert(flag);
      predict.insert(flag);
    }
    return std::map<std::string, std::set<std::string>>{
        {"devices", {"check", "timeout"}}, {"train", train},   {"resume", resume}, {"eval", eval},
        {"predict", predict}, {"export", exportFlags}, {"sweep", sweep}, {"import", {"train", "test", "npz", "to", "size"}},
        {"help", {}},         {"version", {}}};
  }();
  return flags;
}

/// One flag's help: "      --name VALUE" in a 30-column gutter, then its text, whose
/// further lines continue under the first.
std::string helpLine(const std::string& name, const std::string& valueName, const std::string& help) {
  std::string line = "      --" + name + " " + valueName;
  line += std::string(line.size() < 30 ? 30 - line.size() : 1, ' ');
  for (const char c : help) line += c == '\n' ? "\n" + std::string(30, ' ') : std::string(1, c);
  return line + "\n";
}

std::string helpLine(const CliFlag& flag) { return helpLine(flag.name, flag.valueName, flag.help); }

}  // namespace

// A sweep's axes, and eval's shift kinds (one --shift per kind, as the window's --figures
// takes them).
bool repeatable(const std::string& command, const std::string& flag) {
  return (command == "sweep" && flag == "grid") || (command == "eval" && flag == "shift");
}

bool takesNoValue(const std::string& command, const std::string& flag) { return command == "devices" && flag == "check"; }

const std::vector<std::string>& commandNames() {
  static const std::vector<std::string> names{"devices", "train", "resume", "eval", "predict", "export", "sweep", "import"};
  return names;
}

namespace {

/// "devices, train, ..., sweep or import": the commands, as a message lists them.
std::string commandChoices() {
  const std::vector<std::string>& names = commandNames();
  return commaList({names.begin(), names.end() - 1}) + " or " + names.back();
}

bool isCommand(const std::string& word) {
  return std::find(commandNames().begin(), commandNames().end(), word) != commandNames().end();
}

}  // namespace

std::vector<std::string> flagsOf(const std::string& command) {
  const auto it = flagsByCommand().find(command);
  return it == flagsByCommand().end() ? std::vector<std::string>{}
                                      : std::vector<std::string>(it->second.begin(), it->second.end());
}

std::string usageText() {
  std::string train = helpLine(kConfigFile);
  for (const ConfigField& field : configFields()) train += helpLine(field.flag, field.valueName, field.helpText());
  train += helpLine(kOut);
  std::string group;
  for (const CliFlag& flag : groupFlags()) group += helpLine(flag);
  return R"(ensemble-lab-cli: train and compare deep ensembles, headless

Usage:
  ensemble-lab-cli devices [--check [--timeout SECONDS]]
      List the CPU and every CUDA device: index, name, memory. --check also
      all-reduces across every GPU with NCCL (one GPU: that GPU) and across two CPU
      ranks with Gloo, checks the sums and reports the bandwidth as nccl-tests'
      all_reduce_perf does; exits 1 naming the device that fails or hangs past
      --timeout (default 120 s). Run it before a long multi-GPU run.
  ensemble-lab-cli train [flags]
)" + train + R"(    Several processes or hosts (c10d process group; torchrun's RANK, WORLD_SIZE,
    LOCAL_RANK, MASTER_ADDR and MASTER_PORT are read when the flags are absent):
)" + group + R"(      Each rank trains the members (or the shard) of its own --devices (default: one,
      its GPU or the CPU); member i of the group gets seed i, as in one process.
  ensemble-lab-cli resume --run DIR [--world-size N --rank R ...]
      Continue an interrupted run from its last checkpoint (every rank of a
      multi-process run needs the run folder, e.g. on a shared filesystem).
  ensemble-lab-cli eval --run DIR [--dataset NAME|DIR] [--test-limit N] [--ood NAME|DIR]
                        [--shift KIND:LEVEL[,LEVEL...]]...
      Evaluate a run's latest checkpoint (on another dataset, or on its first N test
      samples; 0 = all); prints the metrics as JSON: accuracy, NLL, Brier and ECE of
      each member, of their mean and of the ensemble. --ood adds how well each model's
      uncertainty tells the test set from that dataset's test images (AUROC). --shift
      adds the scores on test images shifted by each level: rotate (degrees), translate
      (pixels), noise (std on [0, 1] pixels) or contrast (0..1); level 0 is no shift.
      Give --shift once per kind to score several.
  ensemble-lab-cli predict --run DIR [--dataset NAME|DIR] [--test-limit N] [--shift KIND:LEVEL]
                           --out FILE.csv
      Write every model's probabilities for every test image:
      index,label,model,p0,...,p{C-1} (C classes; model: member-0 ... member-N-1, ensemble).
  ensemble-lab-cli export --run DIR [--to FILE.json|FILE.csv] [--tensorboard FOLDER]
      Write a run's metrics for other tools: .csv is metrics.csv; .json holds its config,
      summary and every curve (the window's Export writes the same); --tensorboard
      regenerates its TensorBoard log from metrics.csv (a run writes RUN/tensorboard/ live).
  ensemble-lab-cli export --runs DIR,DIR,... [--table FILE.csv] [--curves FILE.csv]
      Write several runs at once: --table one row per run (setup, final scores, speed);
      --curves every curve of every run, one point per row: run,model,step,epoch,metric,value.
      A sweep's folder (or any folder of runs) stands for its runs; a folder whose name
      holds a comma is read whole.
  ensemble-lab-cli sweep --grid SETTING=V1,V2,... [--grid ...] [train flags] [--out SWEEP_DIR]
  ensemble-lab-cli sweep --resume SWEEP_DIR
      Train every combination of the grids' values (a setting by its flag or config
      key, e.g. --grid lr=0.05,0.1 --grid mode=single,ensemble --grid seed=0,1,2), one
      run after another, each in its own folder under SWEEP_DIR; SWEEP_DIR/sweep.json
      records the grid and each job's state. Every job is checked before the first
      starts; a failed job is recorded and the others go on. --resume continues an
      interrupted sweep: finished jobs are kept, the interrupted one resumes from its
      checkpoint, the rest run. Exit status 1 when a job failed.
  ensemble-lab-cli import --train TRAIN.csv --test TEST.csv --to FOLDER [--size ROWSxCOLUMNS]
      Write an MNIST-format folder (the four IDX files) from CSV files of a label and its
      pixels a row, each a whole number 0-255, with a header row or none: Kaggle's
      Fashion-MNIST (fashion-mnist_train.csv: label,pixel1,...,pixel784) and MNIST CSVs.
      The images are square (784 pixels: 28x28) unless --size gives them. FOLDER is made
      where missing and must not hold IDX files; it is checked as training loads it, and
      nothing is left there where the import fails. Then: train --dataset FOLDER.
  ensemble-lab-cli import --npz ARCHIVE.npz --to FOLDER [--size ROWSxCOLUMNS]
      The same from a NumPy .npz archive of x_train, y_train, x_test and y_test (Keras's
      mnist.npz, in ~/.keras/datasets; or train_images, train_labels, test_images,
      test_labels), saved by numpy.savez or numpy.savez_compressed: images N x H x W (or
      with one channel, or flattened N x H*W: square unless --size), labels N, elements
      of any integer or float type holding whole numbers 0-255.
  ensemble-lab-cli --version | --help
  ensemble-lab-cli help COMMAND | COMMAND --help
      COMMAND's usage alone.
  ensemble-lab-cli --list-flags COMMAND
      The flags COMMAND accepts, one per line.
  ensemble-lab-cli --complete WORD...
      What the last WORD of a command line (after ensemble-lab-cli) may become, one per
      line: for shell completion (the bash, zsh and fish completions the package installs ask it).

Exit status: 0 success, 1 error, 2 usage error, 130 stopped by a signal (resumable).
)";
}

std::string commandUsageText(const std::string& command) {
  const std::string all = usageText();
  const std::string usageLine = "  ensemble-lab-cli ";
  std::string part, exitStatus;
  bool inCommand = false;
  std::size_t start = 0;
  for (std::size_t end; start < all.size(); start = end + 1) {
    end = all.find('\n', start);
    if (end == std::string::npos) end = all.size();
    const std::string line = all.substr(start, end - start);
    if (line.rfind(usageLine, 0) == 0) {
      const std::string rest = line.substr(usageLine.size());
      inCommand = rest.rfind(command + " ", 0) == 0 || rest == command;
    } else if (line.empty() || line[0] != ' ') {
      inCommand = false;  // "Usage:", a blank line, the exit statuses
    }
    if (inCommand) part += line + "\n";
    if (line.rfind("Exit status:", 0) == 0) exitStatus = line + "\n";
  }
  if (part.empty()) return all;
  if (command == "sweep") {
    part += "      [train flags]: see `ensemble-lab-cli train --help`; a sweep runs in one process (no --world-size,\n"
            "      --rank, --master-addr, --master-port, --backend or --timeout).\n";
  }
  return "Usage:\n" + part + "\n" + exitStatus + "(`ensemble-lab-cli --help` describes every command.)\n";
}

int64_t parseInteger(const CliOptions& options, const std::string& flag) {
  const std::string& text = options.value(flag);
  if (const auto value = ensemble::wholeInteger(text)) return *value;
  if (const std::string range = ensemble::integerOutOfRange(text); !range.empty()) {
    throw ensemble::ConfigError("--" + flag + " " + text + " is " + range);
  }
  throw ensemble::ConfigError("--" + flag + " expects an integer, got '" + text + "'");
}

double parseNumber(const CliOptions& options, const std::string& flag) {
  const std::string& text = options.value(flag);
  if (const auto value = ensemble::wholeNumber(text)) return *value;
  if (const std::string range = ensemble::numberOutOfRange(text); !range.empty()) {
    throw ensemble::ConfigError("--" + flag + " " + text + " is " + range);
  }
  throw ensemble::ConfigError("--" + flag + " expects a number, got '" + text + "'");
}

CliOptions parseCommandLine(const std::vector<std::string>& arguments) {
  CliOptions options;
  if (arguments.empty()) throw UsageError("no command given; try `ensemble-lab-cli --help`");
  options.command = arguments.front();
  if (options.command == "--help" || options.command == "-h") options.command = "help";
  if (options.command == "--version") options.command = "version";
  if (options.command == "--list-flags") {
    // For shell completion (and the test that every declared flag has an effect).
    const std::string command = arguments.size() == 2 ? arguments[1] : "";
    if (!isCommand(command)) throw UsageError("--list-flags takes one command: " + commandChoices());
    options.command = "list-flags";
    options.flags["command"] = command;
    return options;
  }
  if (options.command == "help" && arguments.size() > 1) {
    // `help train`, as git and cargo take it: train's own help.
    const std::string& command = arguments[1];
    if (arguments.size() > 2 || !isCommand(command)) {
      throw UsageError("help takes one command: " + commandChoices() +
                       (arguments.size() == 2 ? didYouMean(command, commandNames()) : std::string()));
    }
    options.helpFor = command;
    return options;
  }
  const auto known = flagsByCommand().find(options.command);
  if (known == flagsByCommand().end()) {
    throw UsageError("unknown command '" + options.command + "'" + didYouMean(options.command, commandNames()) +
                     "; the commands are devices, train, resume, eval, predict, export, sweep and import (see --help)");
  }
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (argument == "--help" || argument == "-h") {
      options.helpFor = options.command;
      options.command = "help";
      return options;
    }
    if (argument.rfind("--", 0) != 0) {
      throw UsageError("unexpected argument '" + argument + "' for " + options.command +
                       "; flags start with -- (see --help)");
    }
    std::string name = argument.substr(2), value;
    const std::size_t equals = name.find('=');
    if (equals != std::string::npos) name = name.substr(0, equals);
    // Named before its value is looked for: `devices --bogus` is an unknown flag, not one
    // that lacks a value.
    if (!known->second.count(name)) {
      const std::vector<std::string> flags(known->second.begin(), known->second.end());
      throw UsageError("unknown flag --" + name + " for " + options.command + didYouMean(name, flags, "--") +
                       "; `ensemble-lab-cli " + options.command + " --help` lists its flags");
    }
    if (equals != std::string::npos) {
      value = argument.substr(2 + equals + 1);
    } else if (takesNoValue(options.command, name)) {
      value = "on";
    } else if (i + 1 < arguments.size() && arguments[i + 1].rfind("--", 0) != 0) {
      value = arguments[++i];
    } else {
      // The end, or the next flag (`--lr --epochs 1`): no value of any flag starts with --.
      throw UsageError("--" + name + " needs a value");
    }
    if (value.empty()) {
      // No flag means anything by '': taken as given, --out '' wrote into the working folder
      // and --devices '' became the default, both without a word.
      throw UsageError("--" + name + " needs a value, got an empty one");
    }
    if (options.has(name) && !repeatable(options.command, name)) {
      // Keeping only the last would drop the others without a word (config.json refuses a
      // repeated key for the same reason).
      throw UsageError("--" + name + " is given twice; give it once (only sweep's --grid and eval's --shift repeat)");
    }
    if (options.has(name)) {
      options.flags[name] += kRepeatSeparator + value;
    } else {
      options.flags[name] = value;
    }
  }
  return options;
}

std::vector<std::string> CliOptions::values(const std::string& flag) const {
  std::vector<std::string> list;
  if (!has(flag)) return list;
  const std::string& all = value(flag);
  std::size_t at = 0;
  for (;;) {
    const std::size_t end = all.find(kRepeatSeparator, at);
    list.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) return list;
    at = end + 1;
  }
}

}  // namespace ensemble::cli
