// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/ZipArchive.h"

#include <utility>

#include "core/common/Crc32.h"
#include "core/common/Error.h"
#include "core/data/Inflate.h"

namespace ensemble {
namespace {

// Signatures and sizes of the records read (PKWARE's APPNOTE.TXT, sections 4.3.7-4.3.16).
constexpr std::uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEndOfDirectory = 0x06054b50,
                        kZip64EndOfDirectory = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr std::size_t kLocalHeaderSize = 30, kCentralHeaderSize = 46, kEndOfDirectorySize = 22,
                      kZip64LocatorSize = 20, kZip64EndOfDirectorySize = 56;
constexpr std::uint16_t kZip64Extra = 0x0001;
constexpr std::uint32_t kSaturated32 = 0xFFFFFFFFu;  // "the value is in the ZIP64 extra field"

/// Little-endian fields of `bytes`, bounds-checked by the caller.
std::uint64_t le(const std::vector<std::uint8_t>& bytes, std::size_t at, int width) {
  std::uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | bytes[at + std::size_t(i)];
  return value;
}

/// Whether [at, at + length) lies inside `bytes`, without overflow.
bool inside(const std::vector<std::uint8_t>& bytes, std::uint64_t at, std::uint64_t length) {
  return at <= bytes.size() && length <= bytes.size() - at;
}

DatasetError notAnArchive(const std::string& origin, const std::string& why) {
  return DatasetError(origin + " is not a ZIP archive as a NumPy .npz file is (" + why +
                      "); save the arrays with numpy.savez or numpy.savez_compressed, or copy the file again");
}

DatasetError damaged(const std::string& origin, const std::string& why) {
  return DatasetError(origin + " is damaged: " + why + "; the file is truncated or corrupt, copy it again");
}

/// Where the central directory lies and how many entries it lists: the end record's
/// fields, or the ZIP64 end record's where a locator precedes it.
struct Directory {
  std::uint64_t entries = 0, size = 0, offset = 0;
};

Directory findDirectory(const std::vector<std::uint8_t>& bytes, const std::string& origin) {
  if (bytes.size() < kEndOfDirectorySize) {
    throw notAnArchive(origin, "it holds " + std::to_string(bytes.size()) + " bytes, fewer than a ZIP archive's end record");
  }
  // The end record is the last 22 bytes but for a comment of up to 65,535.
  const std::size_t lowest = bytes.size() >= kEndOfDirectorySize + 0xFFFF ? bytes.size() - kEndOfDirectorySize - 0xFFFF : 0;
  std::size_t end = bytes.size() - kEndOfDirectorySize + 1;
  do {
    --end;
  } while (end > lowest && le(bytes, end, 4) != kEndOfDirectory);
  if (le(bytes, end, 4) != kEndOfDirectory) throw notAnArchive(origin, "no end-of-directory record");
  Directory directory{le(bytes, end + 10, 2), le(bytes, end + 12, 4), le(bytes, end + 16, 4)};
  if (end >= kZip64LocatorSize && le(bytes, end - kZip64LocatorSize, 4) == kZip64Locator) {
    const std::uint64_t record = le(bytes, end - kZip64LocatorSize + 8, 8);
    if (!inside(bytes, record, kZip64EndOfDirectorySize) || le(bytes, std::size_t(record), 4) != kZip64EndOfDirectory) {
      throw damaged(origin, "its ZIP64 end record is not where its locator says");
    }
    directory = {le(bytes, std::size_t(record) + 32, 8), le(bytes, std::size_t(record) + 40, 8),
                 le(bytes, std::size_t(record) + 48, 8)};
  }
  if (!inside(bytes, directory.offset, directory.size)) {
    throw damaged(origin, "its directory lies outside its " + std::to_string(bytes.size()) + " bytes");
  }
  return directory;
}

/// Fills the fields a ZIP64 extra field holds: each one saturated in the central header, in order.
void readZip64Extra(const std::vector<std::uint8_t>& bytes, std::size_t extra, std::size_t extraEnd, ZipEntry& entry,
                    const std::string& origin) {
  while (extra + 4 <= extraEnd) {
    const auto id = std::uint16_t(le(bytes, extra, 2));
    const std::size_t length = std::size_t(le(bytes, extra + 2, 2)), data = extra + 4;
    if (data + length > extraEnd) break;
    if (id == kZip64Extra) {
      std::size_t at = data;
      for (std::uint64_t* field : {&entry.size, &entry.compressedSize, &entry.localHeaderOffset}) {
        if (*field != kSaturated32) continue;
        if (at + 8 > data + length) throw damaged(origin, "the ZIP64 field of " + entry.name + " is cut short");
        *field = le(bytes, at, 8);
        at += 8;
      }
      return;
    }
    extra = data + length;
  }
}

}  // namespace

std::vector<ZipEntry> zipEntries(const std::vector<std::uint8_t>& bytes, const std::string& origin) {
  const Directory directory = findDirectory(bytes, origin);
  std::vector<ZipEntry> entries;
  std::size_t at = std::size_t(directory.offset);
  const std::size_t end = std::size_t(directory.offset + directory.size);
  for (std::uint64_t i = 0; i < directory.entries; ++i) {
    if (at + kCentralHeaderSize > end || le(bytes, at, 4) != kCentralHeader) {
      throw damaged(origin, "its directory lists " + std::to_string(directory.entries) + " files but holds " +
                                std::to_string(i));
    }
    const std::size_t nameLength = std::size_t(le(bytes, at + 28, 2)), extraLength = std::size_t(le(bytes, at + 30, 2)),
                      commentLength = std::size_t(le(bytes, at + 32, 2));
    const std::size_t name = at + kCentralHeaderSize, next = name + nameLength + extraLength + commentLength;
    if (next > end) throw damaged(origin, "its directory's entry " + std::to_string(i + 1) + " runs past its end");
    ZipEntry entry;
    entry.name.assign(bytes.begin() + std::ptrdiff_t(name), bytes.begin() + std::ptrdiff_t(name + nameLength));
    entry.flags = std::uint16_t(le(bytes, at + 8, 2));
    entry.method = std::uint16_t(le(bytes, at + 10, 2));
    entry.crc = std::uint32_t(le(bytes, at + 16, 4));
    entry.compressedSize = le(bytes, at + 20, 4);
    entry.size = le(bytes, at + 24, 4);
    entry.localHeaderOffset = le(bytes, at + 42, 4);
    readZip64Extra(bytes, name + nameLength, name + nameLength + extraLength, entry, origin);
    entries.push_back(std::move(entry));
    at = next;
  }
  return entries;
}

std::vector<std::uint8_t> zipEntryData(const std::vector<std::uint8_t>& bytes, const ZipEntry& entry,
                                       const std::string& origin) {
  const std::string what = entry.name + " in " + origin;
  if (entry.flags & 1u) throw DatasetError(what + " is encrypted; save the arrays without a password");
  if (entry.method != 0 && entry.method != 8) {
    throw DatasetError(what + " is compressed with ZIP method " + std::to_string(entry.method) +
                       "; EnsembleLab reads stored and deflated files, as numpy.savez and numpy.savez_compressed write");
  }
  const std::uint64_t header = entry.localHeaderOffset;
  if (!inside(bytes, header, kLocalHeaderSize) || le(bytes, std::size_t(header), 4) != kLocalHeader) {
    throw damaged(origin, "the data of " + entry.name + " is not where its directory says");
  }
  const std::uint64_t start = header + kLocalHeaderSize + le(bytes, std::size_t(header) + 26, 2) +
                              le(bytes, std::size_t(header) + 28, 2);
  if (!inside(bytes, start, entry.compressedSize)) {
    throw damaged(origin, entry.name + "'s " + std::to_string(entry.compressedSize) + " bytes run past the archive's end");
  }
  // As the IDX reader's limit: far above any dataset that fits in memory, and a guard against
  // a deflate bomb whose directory claims more.
  constexpr std::uint64_t kMostBytes = 32ull << 30;
  if (entry.size > kMostBytes) {
    throw DatasetError(what + " is " + std::to_string(entry.size) + " bytes, more than the " +
                       std::to_string(kMostBytes) + " an array may be; the archive is corrupt, or its arrays too large");
  }
  const std::uint8_t* data = bytes.data() + start;
  std::vector<std::uint8_t> out;
  if (entry.method == 0) {
    if (entry.compressedSize != entry.size) {
      throw damaged(origin, entry.name + " is stored, but its directory gives it two sizes");
    }
    out.assign(data, data + entry.compressedSize);
  } else {
    // No more than the size the directory gives (a deflate bomb stops there).
    Inflated inflated = inflateUpTo(data, std::size_t(entry.compressedSize), Compression::RawDeflate, entry.size);
    if (inflated.ending != Inflated::Ending::Complete) {
      throw damaged(origin, entry.name + " does not decompress to the " + std::to_string(entry.size) +
                                " bytes its directory gives");
    }
    out = std::move(inflated.bytes);
  }
  if (out.size() != entry.size || crc32Extend(0, out.data(), out.size()) != entry.crc) {
    throw damaged(origin, entry.name + "'s contents do not match their CRC-32");
  }
  return out;
}

}  // namespace ensemble
