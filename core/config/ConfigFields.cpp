// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/config/ConfigFields.h"

namespace ensemble {

const std::vector<ConfigField>& configFields() {
  using Kind = ConfigField::Kind;
  static const std::vector<ConfigField> fields{
      {"dataset", "dataset", "Dataset", "NAME|DIR",
       "fashion-mnist (default), synthetic, or a folder with the four\nMNIST-format files (raw or .gz)", Kind::Text},
      {"model", "model", "Model", "NAME", "cnn (default), lenet, resnet18", Kind::Text},
      {"mode", "mode", "Mode", "MODE", "ensemble (default), single, data-parallel", Kind::Text},
      {"devices", "devices", "Devices", "SPEC",
       "cpu, cpu*4, cuda:0,cuda:1, cuda*2, cuda:0*8 or all\n(default: cpu*4 for ensemble, cpu for single, cpu*2 for\n"
       "data-parallel; every GPU when there are several)",
       Kind::Text},
      {"lr", "lr", "Learning rate", "X", "learning rate (default 0.1)", Kind::Number},
      {"momentum", "momentum", "Momentum", "X", "SGD momentum in [0, 1) (default 0.9)", Kind::Number},
      {"batch_size", "batch-size", "Batch size", "N", "per-member batch; the global batch in data-parallel (128)",
       Kind::Integer},
      {"epochs", "epochs", "Epochs", "N", "(default 10)", Kind::Integer},
      {"seed", "seed", "Seed", "N", "run seed; member i's seed is split off it (default 0)",
       Kind::NonNegativeInteger},
      {"train_limit", "train-limit", "Train samples", "N", "use the first N training samples (default: all)",
       Kind::Integer},
      {"test_limit", "test-limit", "Test samples", "N", "use the first N test samples (default: all)", Kind::Integer},
      {"checkpoint_every", "checkpoint-every", "Checkpoint every", "N",
       "also checkpoint every N steps (default: epoch ends only)", Kind::Integer},
      {"log_every", "log-every", "Log every", "N", "write a metrics row every N steps (default 10)", Kind::Integer},
      {"eval_every", "eval-every", "Evaluate every", "N",
       "also evaluate on the test split every N steps (default:\nepoch ends only)", Kind::Integer},
      {"eval_batch_size", "eval-batch-size", "Evaluation batch", "N", "images per evaluation batch (default 256)",
       Kind::Integer},
      {"memory_budget_mb", "memory-budget", "Memory budget", "MB",
       "refuse to start when the run's measured memory need\n(dataset, replicas, evaluation) exceeds MB MiB",
       Kind::Integer},
      {"member_form", "member-form", "Members", "FORM",
       "auto (default): stacked where the members of an ensemble of\nthe cnn share one GPU, separate elsewhere; "
       "separate; or\nstacked: members that share a device trained as one network\nof stacked weights (cnn)",
       Kind::Text},
      {"precision", "precision", "Precision", "P",
       "fp32 (default), tf32 (CUDA matmuls and convolutions in\nTensorFloat-32) or bf16 (autocast to bfloat16)",
       Kind::Text},
      {"deterministic", "deterministic", "Deterministic", "on|off",
       "on (default): GPU runs use deterministic kernels, so the same\nseed gives the same numbers and resume "
       "continues exactly;\noff: cuDNN may pick faster kernels that add in any order\n(CPU runs are deterministic either way)",
       Kind::Switch},
      {"init_from", "init-from", "Initial weights", "FILE[,FILE]",
       "start from state_dicts PyTorch saved (torch.save(model.\nstate_dict(), FILE)): one file for every member, or one\n"
       "per member, comma-separated (default: seeded initialisation)",
       Kind::Text},
  };
  return fields;
}

std::optional<bool> parseSwitch(const std::string& text) {
  if (text == "on" || text == "true" || text == "yes" || text == "1") return true;
  if (text == "off" || text == "false" || text == "no" || text == "0") return false;
  return std::nullopt;
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

std::string phraseMention(const std::string& mention, FieldNaming naming) {
  const std::string resumePrefix = "resume:";
  if (mention.rfind(resumePrefix, 0) == 0) {
    const std::string run = mention.substr(resumePrefix.size());
    return naming == FieldNaming::Labels ? "Run > Resume selected run" : "ensemble-lab-cli resume --run " + run;
  }
  if (mention == "devices-list") {
    return naming == FieldNaming::Labels ? "the Devices list of the Experiment panel" : "`ensemble-lab-cli devices`";
  }
  if (mention == "start-run") {
    return naming == FieldNaming::Labels ? "Start in the Experiment panel" : "`ensemble-lab-cli train`";
  }
  if (mention == "start-sweep") {
    return naming == FieldNaming::Labels ? "Run > New sweep" : "`ensemble-lab-cli sweep --grid ...`";
  }
  if (mention == "out") {
    return naming == FieldNaming::Flags ? "--out DIR" : naming == FieldNaming::Labels ? "another runs folder" : "out";
  }
  const ConfigField* field = configFieldByKey(mention);
  if (!field || naming == FieldNaming::Keys) return mention;
  return naming == FieldNaming::Flags ? "--" + std::string(field->flag) : "\"" + std::string(field->label) + "\"";
}

}  // namespace

std::string phraseMessage(const std::string& message, FieldNaming naming) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t open = message.find("{{", at);
    const std::size_t close = open == std::string::npos ? open : message.find("}}", open + 2);
    if (close == std::string::npos) return out + message.substr(at);
    out += message.substr(at, open - at) + phraseMention(message.substr(open + 2, close - open - 2), naming);
    at = close + 2;
  }
}

}  // namespace ensemble
