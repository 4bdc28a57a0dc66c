// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/LikelyName.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

namespace ensemble {
namespace {

/// Lower case, '_' for '-': the flag batch-size and the key batch_size read alike.
std::string normalised(const std::string& name) {
  std::string out;
  for (const char c : name) out += c == '-' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Names other tools (PyTorch scripts, Keras, Lightning, argparse examples) give our settings
/// and commands, normalised, and the name here each stands for: the first of `targets` that is
/// among the names known where it was written.
struct OtherToolsName {
  std::initializer_list<const char*> names;
  std::initializer_list<const char*> targets;
  const char* note;
};

const char kMembersNote[] = "an ensemble has one member per device: cpu*4 or cuda:0*4 trains four";

const OtherToolsName kOtherToolsNames[] = {
    {{"learning_rate", "learningrate", "lrate", "eta"}, {"lr"}, ""},
    {{"members", "num_members", "n_members", "ensemble_size", "num_models", "n_models", "models"},
     {"devices"},
     kMembersNote},
    {{"device", "gpu", "gpus", "num_gpus", "n_gpus", "ngpus", "cuda"}, {"devices"}, ""},
    {{"bs", "batch", "batchsize", "train_batch_size"}, {"batch_size"}, ""},
    {{"num_epochs", "n_epochs", "max_epochs", "nepochs"}, {"epochs"}, ""},
    {{"wd", "l2", "decay"}, {"weight_decay"}, ""},
    {{"output", "output_dir", "outdir", "out_dir", "save_dir", "logdir", "log_dir"}, {"out"}, ""},
    {{"runs", "run_dir", "run_folder"}, {"run", "out"}, ""},  // the window's --runs; resume's --run
    {{"random_seed", "rng_seed"}, {"seed"}, ""},
    {{"data", "data_dir", "datadir", "dataset_dir", "data_path"}, {"dataset"}, ""},
    {{"arch", "architecture", "net", "network"}, {"model"}, ""},
    {{"dtype", "amp", "mixed_precision"}, {"precision"}, ""},
    {{"train_samples", "num_train", "n_train", "train_size"}, {"train_limit"}, ""},
    {{"test_samples", "num_test", "n_test", "test_size"}, {"test_limit"}, ""},
    {{"save_every", "ckpt_every"}, {"checkpoint_every"}, ""},
    {{"val_every", "eval_interval", "val_interval"}, {"eval_every"}, ""},
    {{"log_interval", "print_every"}, {"log_every"}, ""},
    {{"cfg", "config_file"}, {"config"}, ""},
    // The CLI's commands.
    {{"evaluate", "evaluation"}, {"eval"}, ""},
    {{"continue"}, {"resume"}, ""},
    {{"fit"}, {"train"}, ""},
    {{"infer", "inference"}, {"predict"}, ""},
};

/// Letters left out, added, changed, or two neighbours swapped (optimal string alignment).
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

LikelyName likelyMeant(const std::string& given, const std::vector<std::string>& known) {
  const std::string wanted = normalised(given);
  if (wanted.empty()) return {};
  // The known name whose normalised form is `form`, where there is one.
  const auto knownAs = [&known](const std::string& form) -> const std::string* {
    for (const std::string& name : known) {
      if (normalised(name) == form) return &name;
    }
    return nullptr;
  };
  if (const std::string* same = knownAs(wanted)) return {*same, ""};
  for (const OtherToolsName& other : kOtherToolsNames) {
    if (std::find(other.names.begin(), other.names.end(), wanted) == other.names.end()) continue;
    for (const char* target : other.targets) {
      if (const std::string* name = knownAs(target)) return {*name, other.note};
    }
  }
  // Exactly one name, or exactly one at the least distance: several would be a guess.
  const auto theOne = [](const std::vector<const std::string*>& found) {
    return found.size() == 1 ? LikelyName{*found.front(), ""} : LikelyName{};
  };
  if (wanted.size() >= 3) {
    std::vector<const std::string*> longer;
    for (const std::string& name : known) {
      if (normalised(name).rfind(wanted, 0) == 0) longer.push_back(&name);
    }
    if (!longer.empty()) return theOne(longer);
  }
  const std::size_t allowed = wanted.size() >= 5 ? 2 : 1;
  std::size_t nearest = allowed + 1;
  std::vector<const std::string*> atNearest;
  for (const std::string& name : known) {
    // The lengths' difference is the least distance: beyond the allowed, no table to fill
    // (a key of a megabyte in a corrupt config.json would take one of megabytes per name).
    const std::string form = normalised(name);
    if (std::max(form.size(), wanted.size()) - std::min(form.size(), wanted.size()) > allowed) continue;
    const std::size_t distance = editDistance(wanted, form);
    if (distance > allowed) continue;
    if (distance < nearest) atNearest.clear(), nearest = distance;
    if (distance == nearest) atNearest.push_back(&name);
  }
  return theOne(atNearest);
}

std::string didYouMean(const std::string& given, const std::vector<std::string>& known, const std::string& prefix,
                       const std::string& suffix) {
  const LikelyName likely = likelyMeant(given, known);
  if (likely.name.empty()) return "";
  return " (did you mean " + prefix + likely.name + suffix + "?" + (likely.note.empty() ? "" : " " + likely.note) + ")";
}

}  // namespace ensemble
