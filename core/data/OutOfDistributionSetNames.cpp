// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/OutOfDistributionSetNames.h"

namespace ensemble {

std::vector<std::string> builtInOutOfDistributionSets() { return {"inverted", "uniform-noise"}; }

std::string describeOutOfDistributionSet(const std::string& name) {
  if (name == "inverted") return "the run's test images as their negative (255 - x): the same shapes, inverted";
  if (name == "uniform-noise") return "uniform random pixels at the run's image size, as many as its test images";
  return {};
}

}  // namespace ensemble
