// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// zlib's CRC-32 over any length (zlib takes 32-bit ones): a checkpoint's files in its
// manifest, a test set's fingerprint (Dataset::contentDigest).
#include <cstddef>
#include <cstdint>

namespace ensemble {

/// The CRC-32 of what `crc` covered followed by `size` bytes at `data`; 0 starts one.
std::uint32_t crc32Extend(std::uint32_t crc, const void* data, std::size_t size);

}  // namespace ensemble
