// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/TensorBoardEvents.h"

#include <array>
#include <cstring>
#include <optional>

namespace ensemble {
namespace {

// Protobuf wire types (https://protobuf.dev/programming-guides/encoding/).
constexpr std::uint32_t kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;

std::array<std::uint32_t, 256> makeCrcTable() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));  // reflected Castagnoli
    table[i] = crc;
  }
  return table;
}

void putVarint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out += char((value & 0x7F) | 0x80);
    value >>= 7;
  }
  out += char(value);
}

void putKey(std::string& out, std::uint32_t field, std::uint32_t wireType) { putVarint(out, (field << 3) | wireType); }

template <typename T>
void putLittleEndian(std::string& out, T value) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // x86 and ARM Linux are little-endian, as the format
  out.append(reinterpret_cast<const char*>(bytes), sizeof(T));
}

void putBytes(std::string& out, std::uint32_t field, const std::string& bytes) {
  putKey(out, field, kLengthDelimited);
  putVarint(out, bytes.size());
  out += bytes;
}

/// The Event's wall_time and step fields, which every record starts with.
std::string eventHeader(double wallTime, int64_t step) {
  std::string event;
  std::uint64_t bits = 0;
  std::memcpy(&bits, &wallTime, sizeof bits);
  if (bits != 0) {  // proto3 leaves a default value (+0.0, 0) out, as protobuf's own encoder does
    putKey(event, 1, kFixed64);
    putLittleEndian(event, wallTime);
  }
  if (step != 0) {
    putKey(event, 2, kVarint);
    putVarint(event, std::uint64_t(step));
  }
  return event;
}

template <typename T>
T getLittleEndian(const char* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

/// Reads protobuf fields one by one; any malformed input ends the walk (ok() false).
class FieldReader {
 public:
  explicit FieldReader(const std::string& bytes) : m_bytes(bytes) {}

  /// The next field's number and wire type; false at the end or on malformed input.
  bool next(std::uint32_t& field, std::uint32_t& wireType) {
    if (m_at == m_bytes.size()) return false;
    const std::optional<std::uint64_t> key = varint();
    if (!key) return fail();
    field = std::uint32_t(*key >> 3);
    wireType = std::uint32_t(*key & 7);
    return true;
  }
  std::optional<std::uint64_t> varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64 && m_at < m_bytes.size(); shift += 7) {
      const auto byte = static_cast<unsigned char>(m_bytes[m_at++]);
      value |= std::uint64_t(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return value;
    }
    return std::nullopt;
  }
  std::optional<std::string> fixed(std::size_t size) {
    if (m_bytes.size() - m_at < size) return std::nullopt;
    std::string bytes = m_bytes.substr(m_at, size);
    m_at += size;
    return bytes;
  }
  std::optional<std::string> lengthDelimited() {
    const std::optional<std::uint64_t> size = varint();
    if (!size) return std::nullopt;
    return fixed(std::size_t(*size));
  }
  /// Steps over a field of `wireType` this reader has no use for.
  bool skip(std::uint32_t wireType) {
    switch (wireType) {
      case kVarint: return varint().has_value() || fail();
      case kFixed64: return fixed(8).has_value() || fail();
      case kLengthDelimited: return lengthDelimited().has_value() || fail();
      case kFixed32: return fixed(4).has_value() || fail();
      default: return fail();
    }
  }
  bool ok() const { return m_ok; }

 private:
  bool fail() {
    m_ok = false;
    m_at = m_bytes.size();
    return false;
  }
  const std::string& m_bytes;
  std::size_t m_at = 0;
  bool m_ok = true;
};

/// The scalars of one Summary.Value: its tag and simple_value, if it has both.
std::optional<std::pair<std::string, float>> parseValue(const std::string& bytes) {
  FieldReader reader(bytes);
  std::optional<std::string> tag;
  std::optional<float> value;
  std::uint32_t field = 0, wireType = 0;
  while (reader.next(field, wireType)) {
    if (field == 1 && wireType == kLengthDelimited) {
      tag = reader.lengthDelimited();
    } else if (field == 2 && wireType == kFixed32) {
      if (const auto raw = reader.fixed(4)) value = getLittleEndian<float>(raw->data());
    } else if (!reader.skip(wireType)) {
      break;
    }
  }
  if (!reader.ok() || !tag || !value) return std::nullopt;
  return std::make_pair(*tag, *value);
}

/// Appends the scalars of one Event to `out`.
void parseEvent(const std::string& bytes, std::vector<ScalarEvent>& out) {
  FieldReader reader(bytes);
  double wallTime = 0;
  int64_t step = 0;
  std::vector<std::pair<std::string, float>> values;
  std::uint32_t field = 0, wireType = 0;
  while (reader.next(field, wireType)) {
    if (field == 1 && wireType == kFixed64) {
      if (const auto raw = reader.fixed(8)) wallTime = getLittleEndian<double>(raw->data());
    } else if (field == 2 && wireType == kVarint) {
      if (const auto raw = reader.varint()) step = int64_t(*raw);
    } else if (field == 5 && wireType == kLengthDelimited) {
      const std::optional<std::string> summary = reader.lengthDelimited();
      if (!summary) break;
      FieldReader summaryReader(*summary);
      std::uint32_t summaryField = 0, summaryWire = 0;
      while (summaryReader.next(summaryField, summaryWire)) {
        if (summaryField == 1 && summaryWire == kLengthDelimited) {
          if (const auto value = summaryReader.lengthDelimited()) {
            if (auto scalar = parseValue(*value)) values.push_back(std::move(*scalar));
          }
        } else if (!summaryReader.skip(summaryWire)) {
          break;
        }
      }
    } else if (!reader.skip(wireType)) {
      break;
    }
  }
  for (auto& [tag, value] : values) out.push_back({wallTime, step, std::move(tag), value});
}

}  // namespace

std::uint32_t crc32c(const void* data, std::size_t size) {
  static const std::array<std::uint32_t, 256> table = makeCrcTable();
  const auto* bytes = static_cast<const unsigned char*>(data);
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ bytes[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::uint32_t maskedCrc32c(const void* data, std::size_t size) {
  const std::uint32_t crc = crc32c(data, size);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

std::string tfRecord(const std::string& payload) {
  std::string record;
  putLittleEndian(record, std::uint64_t(payload.size()));
  putLittleEndian(record, maskedCrc32c(record.data(), 8));
  record += payload;
  putLittleEndian(record, maskedCrc32c(payload.data(), payload.size()));
  return record;
}

std::string fileVersionRecord(double wallTime) {
  std::string event = eventHeader(wallTime, 0);
  putBytes(event, 3, "brain.Event:2");
  return tfRecord(event);
}

std::string scalarRecord(const ScalarEvent& scalar) {
  std::string value;
  putBytes(value, 1, scalar.tag);
  putKey(value, 2, kFixed32);
  putLittleEndian(value, scalar.value);
  std::string summary;
  putBytes(summary, 1, value);
  std::string event = eventHeader(scalar.wallTime, scalar.step);
  putBytes(event, 5, summary);
  return tfRecord(event);
}

std::vector<ScalarEvent> readScalarRecords(const std::string& bytes, std::size_t* intactBytes) {
  std::vector<ScalarEvent> scalars;
  std::size_t at = 0;
  while (bytes.size() - at >= 12) {
    const auto length = getLittleEndian<std::uint64_t>(bytes.data() + at);
    if (getLittleEndian<std::uint32_t>(bytes.data() + at + 8) != maskedCrc32c(bytes.data() + at, 8)) break;
    const std::size_t left = bytes.size() - at - 12;  // after the length and its CRC
    if (length > left || left - length < 4) break;  // cut short
    const std::string payload = bytes.substr(at + 12, std::size_t(length));
    if (getLittleEndian<std::uint32_t>(bytes.data() + at + 12 + length) != maskedCrc32c(payload.data(), payload.size())) {
      break;
    }
    parseEvent(payload, scalars);
    at += 16 + std::size_t(length);
  }
  if (intactBytes) *intactBytes = at;
  return scalars;
}

}  // namespace ensemble
