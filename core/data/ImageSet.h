// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pixels of a set of grayscale images, for showing them (the gallery, contact
// sheets) without LibTorch.
#include <cstdint>
#include <vector>

namespace ensemble {

struct ImageSet {
  int64_t count = 0;
  int64_t height = 0;
  int64_t width = 0;
  std::vector<uint8_t> pixels;  ///< [count][height][width], row-major, 0 = black

  const uint8_t* image(int64_t index) const { return pixels.data() + index * height * width; }
};

}  // namespace ensemble
