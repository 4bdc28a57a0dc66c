// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/TensorArchiveCheck.h"

#include <cstdint>
#include <cstdlib>

#include "core/common/Error.h"

namespace ensemble {
namespace {

std::uint64_t littleEndian(const std::string& bytes, std::size_t at, int width) {
  std::uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | std::uint8_t(bytes[at + std::size_t(i)]);
  return value;
}

CheckpointError damaged(const std::string& origin, const std::string& why) {
  return CheckpointError(origin + " is damaged or is not a tensor file (" + why + ")");
}

/// The pickle opcodes LibTorch's unpickler knows, by how their argument is laid out.
enum class Argument { None, Fixed1, Fixed2, Fixed4, Fixed8, Length1, Length4, Length8, Line, TwoLines, Unknown };

Argument argumentOf(std::uint8_t opcode) {
  switch (opcode) {
    case '(': case '.': case '0': case '1': case '2': case 'N': case 0x88: case 0x89: case '}': case ']':
    case ')': case 't': case 0x85: case 0x86: case 0x87: case 'a': case 'e': case 's': case 'u': case 'R':
    case 'b': case 'Q': case 0x81: case 'd': case 'l': case 'o': case 0x8f: case 0x90: case 0x91: case 0x92:
    case 0x93: case 0x94: case 0x97: case 0x98:
      return Argument::None;
    case 'K': case 'h': case 'q': case 0x80: case 0x82:
      return Argument::Fixed1;
    case 'M': case 0x83:
      return Argument::Fixed2;
    case 'J': case 'j': case 'r': case 0x84:
      return Argument::Fixed4;
    case 'G': case 0x95:
      return Argument::Fixed8;
    case 'U': case 0x8c: case 'C': case 0x8a:
      return Argument::Length1;
    case 'X': case 'T': case 'B': case 0x8b:
      return Argument::Length4;
    case 0x8d: case 0x8e: case 0x96:
      return Argument::Length8;
    case 'I': case 'L': case 'S': case 'V': case 'F': case 'g': case 'p': case 'P':
      return Argument::Line;
    case 'c': case 'i':
      return Argument::TwoLines;
    default:
      return Argument::Unknown;
  }
}

/// Walks data.pkl's opcodes: every length must fit in what is left of it.
void checkPickle(const std::string& bytes, std::size_t begin, std::size_t size, const std::string& origin) {
  const std::size_t end = begin + size;
  std::size_t at = begin;
  const auto need = [&](std::uint64_t count) {
    if (count > end - at) throw damaged(origin, "data.pkl claims " + std::to_string(count) + " bytes where " + std::to_string(end - at) + " remain");
  };
  while (at < end) {
    const std::uint8_t opcode = std::uint8_t(bytes[at++]);
    if (opcode == '.') return;
    std::uint64_t length = 0;
    switch (argumentOf(opcode)) {
      case Argument::None: break;
      case Argument::Fixed1: need(1); at += 1; break;
      case Argument::Fixed2: need(2); at += 2; break;
      case Argument::Fixed4:
        need(4);
        // LONG_BINPUT / LONG_BINGET: LibTorch grows its memo table to the index it is given
        // (found by fuzzing: an index of 1.7 billion asked for 28 GB). A pickler numbers
        // its memo entries from 0, so no index can reach the pickle's own size.
        if ((opcode == 'r' || opcode == 'j') && littleEndian(bytes, at, 4) >= size) {
          throw damaged(origin, "data.pkl refers to memo entry " + std::to_string(littleEndian(bytes, at, 4)));
        }
        at += 4;
        break;
      case Argument::Fixed8: need(8); at += 8; break;
      case Argument::Length1: need(1); length = littleEndian(bytes, at, 1); at += 1; need(length); at += length; break;
      case Argument::Length4: need(4); length = littleEndian(bytes, at, 4); at += 4; need(length); at += length; break;
      case Argument::Length8: need(8); length = littleEndian(bytes, at, 8); at += 8; need(length); at += length; break;
      case Argument::TwoLines:
      case Argument::Line:
        if (opcode == 'p' || opcode == 'g') {  // text PUT / GET: the same memo bound
          const std::size_t newline = bytes.find('\n', at);
          if (newline == std::string::npos || newline >= end || newline - at > 9 ||
              std::strtoull(bytes.substr(at, newline - at).c_str(), nullptr, 10) >= size) {
            throw damaged(origin, "data.pkl refers to a memo entry beyond its size");
          }
        }
        for (int lines = argumentOf(opcode) == Argument::TwoLines ? 2 : 1; lines > 0; --lines) {
          const std::size_t newline = bytes.find('\n', at);
          if (newline == std::string::npos || newline >= end) throw damaged(origin, "data.pkl ends inside a line");
          at = newline + 1;
        }
        break;
      case Argument::Unknown:
        throw damaged(origin, "data.pkl holds the unknown pickle opcode " + std::to_string(opcode));
    }
  }
  throw damaged(origin, "data.pkl has no end");
}

}  // namespace

void checkTensorFileStart(const std::string& firstBytes, const std::string& origin) {
  const bool legacyPickle = !firstBytes.empty() && std::uint8_t(firstBytes[0]) == 0x80;
  if (!legacyPickle && firstBytes.compare(0, 4, "PK\x03\x04") != 0) throw damaged(origin, "no ZIP header");
}

void checkTensorArchive(const std::string& bytes, const std::string& origin) {
  const auto damaged = [&](const std::string& why) { return ensemble::damaged(origin, why); };
  bool sawPickle = false;
  constexpr std::size_t kEndRecord = 22;
  if (bytes.size() < kEndRecord || bytes.compare(0, 4, "PK\x03\x04") != 0) throw damaged("no ZIP header");
  std::size_t end = std::string::npos;
  for (std::size_t at = bytes.size() - kEndRecord + 1; at-- > 0 && bytes.size() - at <= kEndRecord + 0xFFFF;) {
    if (bytes.compare(at, 4, "PK\x05\x06") == 0) {
      end = at;
      break;
    }
  }
  if (end == std::string::npos) throw damaged("no ZIP directory");
  std::uint64_t entries = littleEndian(bytes, end + 10, 2);
  std::uint64_t offset = littleEndian(bytes, end + 16, 4);
  if (offset == 0xFFFFFFFFu || entries == 0xFFFFu) {  // ZIP64: the real values are in its end record
    if (end < 20 || bytes.compare(end - 20, 4, "PK\x06\x07") != 0) throw damaged("broken ZIP64 locator");
    const std::uint64_t record = littleEndian(bytes, end - 20 + 8, 8);
    if (record + 56 > bytes.size() || bytes.compare(std::size_t(record), 4, "PK\x06\x06") != 0) {
      throw damaged("broken ZIP64 directory");
    }
    entries = littleEndian(bytes, std::size_t(record) + 32, 8);
    offset = littleEndian(bytes, std::size_t(record) + 48, 8);
  }
  for (std::uint64_t i = 0; i < entries; ++i) {
    if (offset + 46 > bytes.size() || bytes.compare(std::size_t(offset), 4, "PK\x01\x02") != 0) {
      throw damaged("ZIP directory entry " + std::to_string(i) + " is cut off");
    }
    const std::size_t at = std::size_t(offset);
    const std::uint64_t method = littleEndian(bytes, at + 10, 2);
    std::uint64_t compressed = littleEndian(bytes, at + 20, 4), size = littleEndian(bytes, at + 24, 4);
    const std::uint64_t nameLength = littleEndian(bytes, at + 28, 2), extraLength = littleEndian(bytes, at + 30, 2);
    const std::uint64_t commentLength = littleEndian(bytes, at + 32, 2);
    if (at + 46 + nameLength + extraLength > bytes.size()) throw damaged("ZIP directory entry is cut off");
    // ZIP64 sizes live in the extra field (tag 1) when the 32-bit ones are saturated.
    for (std::size_t e = at + 46 + nameLength; e + 4 <= at + 46 + nameLength + extraLength;) {
      const std::uint64_t tag = littleEndian(bytes, e, 2), length = littleEndian(bytes, e + 2, 2);
      if (tag == 1 && e + 4 + length <= bytes.size()) {
        std::size_t field = e + 4;
        if (size == 0xFFFFFFFFu && length >= 8) size = littleEndian(bytes, field, 8), field += 8;
        if (compressed == 0xFFFFFFFFu && field + 8 <= e + 4 + length) compressed = littleEndian(bytes, field, 8);
      }
      e += 4 + std::size_t(length);
    }
    if (method != 0 || size > bytes.size() || compressed > bytes.size()) {
      throw damaged("an entry claims " + std::to_string(size) + " bytes in a file of " + std::to_string(bytes.size()));
    }
    const std::string name = bytes.substr(at + 46, std::size_t(nameLength));
    if (name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0) {
      // Its data sits after the local header, whose name and extra lengths are its own.
      const std::uint64_t local = littleEndian(bytes, at + 42, 4);
      if (local + 30 > bytes.size() || bytes.compare(std::size_t(local), 4, "PK\x03\x04") != 0) {
        throw damaged("data.pkl's local header is missing");
      }
      const std::uint64_t data = local + 30 + littleEndian(bytes, std::size_t(local) + 26, 2) +
                                 littleEndian(bytes, std::size_t(local) + 28, 2);
      if (data + size > bytes.size()) throw damaged("data.pkl is cut off");
      checkPickle(bytes, std::size_t(data), std::size_t(size), origin);
      sawPickle = true;
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  if (!sawPickle) throw damaged("no data.pkl");
}


}  // namespace ensemble
