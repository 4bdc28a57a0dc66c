// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The files of a ZIP archive held in memory, as NumPy's .npz files are (np.savez: stored;
// np.savez_compressed: deflated; both ZIP64, which NumPy forces). Read from the central
// directory, the archive's own list; each file is checked against its CRC-32. Torch-free,
// for the import of .npz datasets (core/data/NpzDataset.h) and its fuzz harness.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// One file of an archive, as its central directory lists it.
struct ZipEntry {
  std::string name;
  std::uint16_t method = 0;  // 0 stored, 8 deflated
  std::uint16_t flags = 0;
  std::uint32_t crc = 0;
  std::uint64_t compressedSize = 0;
  std::uint64_t size = 0;
  std::uint64_t localHeaderOffset = 0;
};

/// The files `bytes` holds. Throws DatasetError naming `origin` where the bytes are no ZIP
/// archive (a NumPy .npz is one), or its directory is cut short or points outside it.
std::vector<ZipEntry> zipEntries(const std::vector<std::uint8_t>& bytes, const std::string& origin);

/// The contents of `entry`, inflated where deflated and checked against its size and CRC-32.
/// Throws DatasetError naming the entry and `origin` for a method other than those two, an
/// encrypted entry, data outside the archive, or contents that do not match.
std::vector<std::uint8_t> zipEntryData(const std::vector<std::uint8_t>& bytes, const ZipEntry& entry,
                                       const std::string& origin);

}  // namespace ensemble
