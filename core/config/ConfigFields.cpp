// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/config/ConfigFields.h"

#include <cmath>
#include <filesystem>
#include <type_traits>
#include <utility>

#include "core/common/Error.h"
#include "core/common/TextFormat.h"
#include "core/common/FieldMention.h"
#include "core/common/JsonInteger.h"
#include "core/common/NumberText.h"
#include "core/config/ExperimentConfig.h"
#include "core/models/ModelRegistry.h"

namespace ensemble {

namespace {

using nlohmann::json;
using Kind = ConfigField::Kind;

std::string numberText(double value) { return exactNumberText(value); }

/// config.json's `value` for `key` into `out`, or ConfigError naming `origin`, the key and
/// what it must be.
template <typename T>
void readValue(const json& value, const char* key, T& out, const std::string& origin, const char* expected) {
  try {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      // A fraction told as no integer, a number too large with the range (JsonInteger.h).
      out = integerOrThrow<T, ConfigError>(value, origin + ": \"" + key + "\"");
    } else {
      out = value.get<T>();
    }
  } catch (const json::exception&) {
    throw ConfigError(origin + ": \"" + key + "\" must be " + expected + ", got " + value.dump());
  }
}

const char* expectedOf(Kind kind) {
  switch (kind) {
    case Kind::Text:
    case Kind::Choice: return "a string";
    case Kind::Integer: return "an integer";
    case Kind::NonNegativeInteger: return "a non-negative integer";
    case Kind::Number: return "a number";
    case Kind::Switch: return "true or false";
  }
  return "a value";
}

using Check = std::function<std::string(const ExperimentConfig&)>;

/// A setting stored as it is in member `member` (a string, number, integer or bool).
template <typename T>
ConfigField plain(const char* key, const char* flag, const char* label, const char* valueName, const char* help,
                  Kind kind, bool inForm, T ExperimentConfig::*member, Check check = {}) {
  ConfigField field{key, flag, label, valueName, help, kind, inForm, false, {}, {}, {}, {}};
  field.get = [member](const ExperimentConfig& config) { return json(config.*member); };
  field.set = [member, key, kind](ExperimentConfig& config, const json& value, const std::string& origin) {
    readValue(value, key, config.*member, origin, expectedOf(kind));
  };
  field.check = check ? std::move(check) : Check([](const ExperimentConfig&) { return std::string(); });
  return field;
}

/// A setting that is one of an enum's names.
template <typename E>
ConfigField choice(const char* key, const char* flag, const char* label, const char* valueName, const char* help,
                   bool inForm, E ExperimentConfig::*member, std::string (*name)(E), E (*parse)(const std::string&),
                   std::vector<std::string> names) {
  ConfigField field{key, flag, label, valueName, help, Kind::Choice, inForm, false, std::move(names), {}, {}, {}};
  field.get = [member, name](const ExperimentConfig& config) { return json(name(config.*member)); };
  field.set = [member, parse, key](ExperimentConfig& config, const json& value, const std::string& origin) {
    std::string text;
    readValue(value, key, text, origin, "a string");
    config.*member = parse(text);
  };
  field.check = [](const ExperimentConfig&) { return std::string(); };
  return field;
}

/// cuda_graphs: a choice whose config.json value may also be a bool, as it was before auto.
ConfigField cudaGraphsChoice() {
  ConfigField field = choice("cuda_graphs", "cuda-graphs", "CUDA graphs", "WHEN",
                             "{default} (default): on for the cnn's stacked members or single\nmodel on one GPU in one "
                             "process (the same numbers, byte for\nbyte), off elsewhere; on: capture each training "
                             "step once in a\nCUDA graph and replay it (one GPU, one process; CUDA build); off",
                             false, &ExperimentConfig::cudaGraphs, cudaGraphsName, parseCudaGraphs, cudaGraphsNames());
  field.set = [](ExperimentConfig& config, const json& value, const std::string& origin) {
    if (value.is_boolean()) {
      config.cudaGraphs = value.get<bool>() ? CudaGraphs::On : CudaGraphs::Off;
      return;
    }
    std::string text;
    readValue(value, "cuda_graphs", text, origin, "auto, on or off");
    config.cudaGraphs = parseCudaGraphs(text);
  };
  return field;
}

/// eval_batch_size: a count of images, or auto (0 in ExperimentConfig), which RunSession
/// resolves for the run's devices (evalBatchSizeFor) before config.json records it.
ConfigField evalBatchSizeField() {
  const std::string rule = "eval_batch_size must be auto or at least 1, got ";
  static const std::string help = "images per evaluation batch, or {default} (default): " +
                                  std::to_string(kCpuEvalBatchSize) + "\non the CPU, " +
                                  std::to_string(kGpuEvalBatchSize) + " where every device is a GPU";
  ConfigField field = plain("eval_batch_size", "eval-batch-size", "Evaluation batch", "N", help.c_str(),
                            Kind::Integer, false, &ExperimentConfig::evalBatchSize,
                            [rule](const ExperimentConfig& config) {
                              return config.evalBatchSize < 0 ? rule + std::to_string(config.evalBatchSize)
                                                              : std::string();
                            });
  field.acceptsAuto = true;
  field.get = [](const ExperimentConfig& config) {
    return config.evalBatchSize == kAutoEvalBatchSize ? json("auto") : json(config.evalBatchSize);
  };
  field.set = [rule](ExperimentConfig& config, const json& value, const std::string& origin) {
    if (value.is_string()) {
      if (value.get<std::string>() != "auto") {
        throw ConfigError(origin + ": \"eval_batch_size\" must be auto or an integer, got " + value.dump());
      }
      config.evalBatchSize = kAutoEvalBatchSize;
      return;
    }
    readValue(value, "eval_batch_size", config.evalBatchSize, origin, "auto or an integer");
    // 0 is how ExperimentConfig holds auto; in config.json it is a batch of no images.
    if (config.evalBatchSize < 1) throw ConfigError(origin + ": " + rule + value.dump());
  };
  return field;
}

/// "must be at least 1" for a count of steps, epochs or images.
Check atLeastOne(int64_t ExperimentConfig::*member, std::string name, std::string hint = "") {
  return [member, name, hint](const ExperimentConfig& config) {
    const int64_t value = config.*member;
    return value < 1 ? name + " must be at least 1, got " + std::to_string(value) + hint : std::string();
  };
}

/// "must be 0 (meaning) or positive".
Check zeroOrPositive(int64_t ExperimentConfig::*member, std::string name, std::string zeroMeans) {
  return [member, name, zeroMeans](const ExperimentConfig& config) {
    const int64_t value = config.*member;
    return value < 0 ? name + " must be 0 (" + zeroMeans + ") or positive, got " + std::to_string(value) : std::string();
  };
}

/// `field`, echoed in summary.json.
ConfigField echoed(ConfigField field) {
  field.inSummary = true;
  return field;
}

std::vector<ConfigField> makeFields() {
  const ExperimentConfig defaults;
  std::vector<ConfigField> fields;
  fields.push_back(echoed(plain("dataset", "dataset", "Dataset", "NAME|DIR",
                         "{default} (default), synthetic, or a folder with the four\nMNIST-format files (raw or .gz)",
                         Kind::Text, true, &ExperimentConfig::dataset, [](const ExperimentConfig& config) {
                           return config.dataset.empty() ? "dataset is empty; use fashion-mnist, synthetic or a folder"
                                                         : std::string();
                         })));
  fields.push_back(echoed(choice("model", "model", "Model", "NAME", "{choices}", true, &ExperimentConfig::model, modelName,
                          parseModel, modelNames())));
  fields.push_back(echoed(choice("mode", "mode", "Mode", "MODE", "{choices}", true, &ExperimentConfig::mode, modeName, parseMode,
                          modeNames())));
  fields.push_back(plain("devices", "devices", "Devices", "SPEC",
                         "cpu, cpu*4, cuda:0,cuda:1, cuda*2, cuda:0*8 or all\n(default: every GPU where there are several; "
                         "else\nensemble cpu*4, or cuda:0*4 with one GPU; single cpu,\nor cuda:0; data-parallel "
                         "cpu*2)",
                         Kind::Text, true, &ExperimentConfig::devices));
  fields.push_back(echoed(plain("lr", "lr", "Learning rate", "X", "learning rate (default {default})", Kind::Number, true,
                         &ExperimentConfig::learningRate, [fallback = defaults.learningRate](const ExperimentConfig& config) {
                           const double lr = config.learningRate;
                           return std::isfinite(lr) && lr > 0
                                      ? std::string()
                                      : "learning rate (lr) must be a positive finite number, got " + numberText(lr) +
                                            "; the default is " + numberText(fallback);
                         })));
  fields.push_back(echoed(choice("lr_schedule", "lr-schedule", "LR schedule", "NAME",
                                 "{choices}: the learning rate stays lr; falls\nfrom lr to 0 along a half cosine over "
                                 "the run's steps\n(PyTorch's CosineAnnealingLR, stepped every step); or\n"
                                 "is divided by 10 at half and three quarters of them\n(MultiStepLR, gamma 0.1)",
                                 true, &ExperimentConfig::lrSchedule, lrScheduleName, parseLrSchedule, lrScheduleNames())));
  fields.push_back(echoed(plain("lr_warmup_steps", "lr-warmup-steps", "LR warmup", "N",
                         "the first N steps rise linearly to lr (step k of N at\nlr * k / N), then lr_schedule runs over "
                         "the steps\nleft (default {default}: none)",
                         Kind::Integer, true, &ExperimentConfig::lrWarmupSteps,
                         zeroOrPositive(&ExperimentConfig::lrWarmupSteps, mention::field("lr_warmup_steps"), "no warmup"))));
  fields.push_back(echoed(plain("momentum", "momentum", "Momentum", "X", "SGD momentum in [0, 1) (default {default})",
                         Kind::Number, true, &ExperimentConfig::momentum,
                         [fallback = defaults.momentum](const ExperimentConfig& config) {
                           const double m = config.momentum;
                           return std::isfinite(m) && m >= 0 && m < 1
                                      ? std::string()
                                      : "momentum must be in [0, 1), got " + numberText(m) + "; the default is " +
                                            numberText(fallback);
                         })));
  fields.push_back(echoed(plain("weight_decay", "weight-decay", "Weight decay", "X",
                         "L2 weight decay: X times each weight added to its gradient\nbefore momentum, as torch.optim.SGD's "
                         "weight_decay\n(default {default}: none)",
                         Kind::Number, true, &ExperimentConfig::weightDecay, [](const ExperimentConfig& config) {
                           const double decay = config.weightDecay;
                           return std::isfinite(decay) && decay >= 0
                                      ? std::string()
                                      : "weight decay (weight_decay) must be 0 (none) or a positive finite number, got " +
                                            numberText(decay) + "; 1e-4 to 5e-4 is usual";
                         })));
  fields.push_back(echoed(plain("batch_size", "batch-size", "Batch size", "N",
                         "per-member batch; the global batch in data-parallel ({default})", Kind::Integer, true,
                         &ExperimentConfig::batchSize,
                         atLeastOne(&ExperimentConfig::batchSize, "batch size (batch_size)",
                                    "; the default is " + std::to_string(defaults.batchSize)))));
  fields.push_back(echoed(plain("epochs", "epochs", "Epochs", "N", "(default {default})", Kind::Integer, true,
                         &ExperimentConfig::epochs, atLeastOne(&ExperimentConfig::epochs, mention::field("epochs")))));
  fields.push_back(echoed(plain("seed", "seed", "Seed", "N", "run seed; member i's seed is split off it (default {default})",
                         Kind::NonNegativeInteger, true, &ExperimentConfig::seed)));
  fields.push_back(plain("train_limit", "train-limit", "Train samples", "N",
                         "use the first N training samples (default: all)", Kind::Integer, true,
                         &ExperimentConfig::trainLimit, zeroOrPositive(&ExperimentConfig::trainLimit, mention::field("train_limit"), "all")));
  fields.push_back(plain("test_limit", "test-limit", "Test samples", "N", "use the first N test samples (default: all)",
                         Kind::Integer, false, &ExperimentConfig::testLimit,
                         zeroOrPositive(&ExperimentConfig::testLimit, mention::field("test_limit"), "all")));
  fields.push_back(plain("checkpoint_every", "checkpoint-every", "Checkpoint every", "N",
                         "also checkpoint every N steps (default: epoch ends only)", Kind::Integer, false,
                         &ExperimentConfig::checkpointEvery,
                         zeroOrPositive(&ExperimentConfig::checkpointEvery, mention::field("checkpoint_every"), "epoch ends only")));
  fields.push_back(plain("log_every", "log-every", "Log every", "N", "write a metrics row every N steps (default {default})",
                         Kind::Integer, false, &ExperimentConfig::logEvery,
                         atLeastOne(&ExperimentConfig::logEvery, mention::field("log_every"))));
  fields.push_back(plain("eval_every", "eval-every", "Evaluate every", "N",
                         "also evaluate on the test split every N steps (default:\nepoch ends only)", Kind::Integer, true,
                         &ExperimentConfig::evalEvery,
                         zeroOrPositive(&ExperimentConfig::evalEvery, mention::field("eval_every"), "epoch ends only")));
  fields.push_back(evalBatchSizeField());
  fields.push_back(plain("memory_budget_mb", "memory-budget", "Memory budget", "MB",
                         "refuse to start when the run's measured memory need\n(dataset, replicas, evaluation) exceeds MB MiB",
                         Kind::Integer, false, &ExperimentConfig::memoryBudgetMb, [](const ExperimentConfig& config) {
                           return config.memoryBudgetMb < 0
                                      ? "memory budget (memory_budget_mb) must be 0 (none) or a positive number of MiB, got " +
                                            std::to_string(config.memoryBudgetMb)
                                      : std::string();
                         }));
  fields.push_back(echoed(choice("member_form", "member-form", "Members", "FORM",
                          "{default} (default): stacked where the members of an ensemble of\nthe cnn share one GPU, "
                          "separate elsewhere; separate; or\nstacked: members that share a device trained as one "
                          "network\nof stacked weights (cnn)",
                          true, &ExperimentConfig::memberForm, memberFormName, parseMemberForm, memberFormNames())));
  fields.push_back(echoed(choice("precision", "precision", "Precision", "P",
                          "{default} (default), tf32 (CUDA matmuls and convolutions in\nTensorFloat-32) or bf16 (autocast "
                          "to bfloat16)",
                          true, &ExperimentConfig::precision, precisionName, parsePrecision, precisionNames())));
  fields.push_back(echoed(plain("deterministic", "deterministic", "Deterministic", "on|off",
                         "{default} (default): GPU runs use deterministic kernels, so the same\nseed gives the same numbers "
                         "and resume continues exactly;\noff: cuDNN may pick faster kernels that add in any order\n(CPU "
                         "runs are deterministic either way)",
                         Kind::Switch, true, &ExperimentConfig::deterministic)));
  fields.push_back(echoed(cudaGraphsChoice()));
  fields.push_back(plain("init_from", "init-from", "Initial weights", "PATH[,PATH]",
                         "start from state_dicts PyTorch saved (torch.save(model.\nstate_dict(), PATH)): one file for "
                         "every member, or one\nper member, comma-separated; or an earlier run's folder\n(each member "
                         "from its latest checkpoint's) or a checkpoint\nfolder (default: seeded initialisation)",
                         Kind::Text, false, &ExperimentConfig::initFrom, [](const ExperimentConfig& config) {
                           for (const std::string& file : config.initFromFiles()) {
                             if (file.empty()) {
                               return mention::field("init_from") + " '" + config.initFrom + "' has an empty file name";
                             }
                           }
                           return std::string();
                         }));
  fields.push_back(plain("init_std", "init-std", "Initial weights' std", "X",
                         "draw convolution and dense weights from a normal of mean 0\nand std X over the model's own "
                         "initialisation, as d2l.ai's\ninit_weights (0.01); biases and BatchNorm keep theirs\n(default "
                         "{default}: LibTorch's initialisation alone, as PyTorch's)",
                         Kind::Number, false, &ExperimentConfig::initStd, [](const ExperimentConfig& config) {
                           const double sigma = config.initStd;
                           return std::isfinite(sigma) && sigma >= 0
                                      ? std::string()
                                      : mention::field("init_std") + " must be 0 (the model's own initialisation) or a "
                                        "positive finite number, got " + numberText(sigma);
                         }));
  return fields;
}

}  // namespace

const std::vector<ConfigField>& configFields() {
  static const std::vector<ConfigField> fields = makeFields();
  return fields;
}

json ConfigField::defaultValue() const { return get(ExperimentConfig{}); }

std::string ConfigField::helpText() const {
  const json value = defaultValue();
  const std::string shown = kind == Kind::Switch ? (value.get<bool>() ? "on" : "off")
                            : value.is_string()   ? value.get<std::string>()
                            : kind == Kind::Number ? numberText(value.get<double>())
                                                   : value.dump();
  std::string choiceList;
  for (const std::string& name : choices) {
    choiceList += (choiceList.empty() ? "" : ", ") + name + (name == shown ? " (default)" : "");
  }
  std::string text = help;
  for (const auto& [mark, replacement] : {std::pair<std::string, std::string>{"{default}", shown}, {"{choices}", choiceList}}) {
    for (std::size_t at = text.find(mark); at != std::string::npos; at = text.find(mark, at + replacement.size())) {
      text.replace(at, mark.size(), replacement);
    }
  }
  return text;
}

json ConfigField::parseText(const std::string& text) const {
  const std::string named = mention::field(key);
  switch (kind) {
    case Kind::Text:
    case Kind::Choice: return text;
    case Kind::Switch:
      if (const std::optional<bool> value = parseSwitch(text)) return *value;
      throw ConfigError(named + " takes on or off, got '" + text + "'", key);
    case Kind::Number:
      if (const auto value = wholeNumber(text)) return *value;
      if (const std::string range = numberOutOfRange(text); !range.empty()) {
        throw ConfigError(named + " " + text + " is " + range, key);
      }
      throw ConfigError(named + " expects a number, got '" + text + "'", key);
    case Kind::Integer:
      if (const auto value = wholeInteger(text)) return *value;
      if (acceptsAuto && text == "auto") return text;
      if (const std::string range = integerOutOfRange(text); !range.empty()) {
        throw ConfigError(named + " " + text + " is " + range, key);
      }
      throw ConfigError(named + (acceptsAuto ? " expects auto or an integer" : " expects an integer") + ", got '" + text +
                            "'",
                        key);
    case Kind::NonNegativeInteger:
      // The whole range config.json takes (a uint64), not only int64's half of it.
      if (const auto value = wholeUnsigned(text)) return *value;
      throw ConfigError(named + " expects a non-negative integer, at most 18446744073709551615, got '" + text + "'", key);
  }
  return text;
}

std::optional<bool> parseSwitch(const std::string& text) {
  if (text == "on" || text == "true" || text == "yes" || text == "1") return true;
  if (text == "off" || text == "false" || text == "no" || text == "0") return false;
  return std::nullopt;
}

std::vector<std::string> configKeys() {
  std::vector<std::string> keys;
  for (const ConfigField& field : configFields()) keys.push_back(field.key);
  return keys;
}

const ConfigField* configFieldByKey(const std::string& key) {
  for (const ConfigField& field : configFields()) {
    if (key == field.key) return &field;
  }
  return nullptr;
}

const ConfigField* configFieldByFlag(const std::string& flag) {
  for (const ConfigField& field : configFields()) {
    if (flag == field.flag) return &field;
  }
  return nullptr;
}

namespace {

std::string phraseMention(const std::string& mention, FieldNaming naming, const std::string& outputMention) {
  const std::string resumePrefix = "resume:";
  if (mention.rfind(resumePrefix, 0) == 0) {
    const std::string run = mention.substr(resumePrefix.size());
    std::string folder = run;
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    // The window's Resume acts on the selection: the message names the run to select (it
    // said "Resume selected run" while another run was selected).
    return naming == FieldNaming::Labels
               ? "Run > Resume selected run, with " + std::filesystem::path(folder).filename().string() + " selected"
               : "ensemble-lab-cli resume --run " + shellWord(run);
  }
  const std::string sweepPrefix = "continue-sweep:";
  if (mention.rfind(sweepPrefix, 0) == 0) {
    const std::string folder = mention.substr(sweepPrefix.size());
    return naming == FieldNaming::Labels ? "Run > Open sweep… on " + folder
                                         : "`ensemble-lab-cli sweep --resume " + shellWord(folder) + "`";
  }
  if (mention == "devices-list") {
    return naming == FieldNaming::Labels ? "the Devices list of the Experiment panel" : "`ensemble-lab-cli devices`";
  }
  if (mention == "ood") {
    return naming == FieldNaming::Labels ? "\"Out-of-distribution dataset\" (the Uncertainty tab)"
                                         : naming == FieldNaming::Flags ? "--ood" : "ood";
  }
  if (mention == "start-run") {
    return naming == FieldNaming::Labels ? "Start in the Experiment panel" : "`ensemble-lab-cli train`";
  }
  if (mention == "start-sweep") {
    return naming == FieldNaming::Labels ? "Run > New sweep" : "`ensemble-lab-cli sweep --grid ...`";
  }
  if (mention == "out") {
    if (!outputMention.empty()) return outputMention;
    return naming == FieldNaming::Flags ? "--out DIR" : naming == FieldNaming::Labels ? "another runs folder (ensemble-lab --runs DIR)" : "out";
  }
  const ConfigField* field = configFieldByKey(mention);
  if (!field || naming == FieldNaming::Keys) return mention;
  return naming == FieldNaming::Flags ? "--" + std::string(field->flag) : "\"" + std::string(field->label) + "\"";
}

}  // namespace

std::string phraseMessage(const std::string& message, FieldNaming naming, const std::string& outputMention) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t open = message.find("{{", at);
    const std::size_t close = open == std::string::npos ? open : message.find("}}", open + 2);
    if (close == std::string::npos) return out + message.substr(at);
    out += message.substr(at, open - at) + phraseMention(message.substr(open + 2, close - open - 2), naming, outputMention);
    at = close + 2;
  }
}

}  // namespace ensemble
