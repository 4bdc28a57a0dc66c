// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/Crc32.h"

#include <zlib.h>

#include <algorithm>

namespace ensemble {

std::uint32_t crc32Extend(std::uint32_t crc, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const Bytef*>(data);
  uLong value = crc;
  for (std::size_t done = 0; done < size;) {
    const uInt chunk = uInt(std::min<std::size_t>(size - done, std::size_t(1) << 30));
    value = ::crc32(value, bytes + done, chunk);
    done += chunk;
  }
  return std::uint32_t(value);
}

}  // namespace ensemble
