// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Applies a DatasetShift (DatasetShift.h says what each kind does) to a batch of images.
#include <torch/types.h>

#include <cstdint>

#include "core/data/DatasetShift.h"

namespace ensemble {

/// `images` (uint8 [N, C, H, W], any device) shifted; level 0 returns `images` itself.
/// Random choices (noise, directions) come from `seed`, so they repeat exactly.
torch::Tensor applyShift(const torch::Tensor& images, const DatasetShift& shift, std::uint64_t seed);

}  // namespace ensemble
