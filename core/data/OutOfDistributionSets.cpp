// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/OutOfDistributionSets.h"

#include <torch/torch.h>

namespace ensemble {

std::optional<Dataset> makeOutOfDistributionSet(const std::string& name, const Dataset& test, std::uint64_t seed) {
  if (name != "inverted" && name != "uniform-noise") return std::nullopt;
  Dataset set = test;
  set.origin = name + " (made from " + test.origin + ")";
  if (name == "inverted") {
    set.images = 255 - test.images;
  } else {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    set.images = torch::randint(0, 256, test.images.sizes(), generator, torch::kUInt8);
  }
  return set;
}

}  // namespace ensemble
