// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The name a person most likely meant where they wrote one EnsembleLab does not know: a CLI
// flag, a config.json key, a sweep's setting, a command. Refusals then say "did you mean
// --lr?" instead of leaving the person to read a list of thirty. Torch-free.
#include <string>
#include <vector>

namespace ensemble {

/// What likelyMeant found: one of the known names, in its own spelling, and where the name
/// given is another tool's for a setting that works differently here, how it works here.
struct LikelyName {
  std::string name;  ///< empty: none stands out
  std::string note;  ///< e.g. for --members: one member per device
};

/// The one of `known` that `given` most likely means, tried in this order: the same name with
/// '-' for '_' or in other case (batch-size: batch_size); another tool's name for it
/// (learning_rate: lr, gpus: devices, output_dir: out, num_epochs: epochs); the start of
/// exactly one longer name, three letters or more (epoch: epochs); a typo of one letter (two
/// in names of five or more: a letter left out, added, changed or two swapped) from exactly
/// one name nearer than any other. None where no rule picks exactly one.
LikelyName likelyMeant(const std::string& given, const std::vector<std::string>& known);

/// " (did you mean PREFIX + name?  note)", or "" where none stands out: the clause the
/// refusals put after the unknown name (PREFIX: "--" for a flag, "\"" for a key).
std::string didYouMean(const std::string& given, const std::vector<std::string>& known,
                       const std::string& prefix = "", const std::string& suffix = "");

}  // namespace ensemble
