// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A number typed as text, all of it: "12" reads 12, "12x", "", "0x10" or "1e99999" read nothing.
// The CLI's flags and the bench's arguments are parsed through it, each front end saying
// in its own words what was wrong; *OutOfRange tell a number too large (or small) to hold
// from a typo.
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace ensemble {

inline std::optional<int64_t> wholeInteger(const std::string& text) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {  // not a number, or out of range
  }
  return std::nullopt;
}

/// Digits only ("+1", "-1" or " 1" read nothing: stoull would take "-1" as 2^64 - 1), up
/// to 2^64 - 1, the range config.json takes for the seed.
inline std::optional<std::uint64_t> wholeUnsigned(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  try {
    return std::uint64_t(std::stoull(text));
  } catch (const std::exception&) {  // out of range
  }
  return std::nullopt;
}

/// Written as people write numbers: decimal digits, a point, an exponent, a sign ("0.1",
/// "-2.5e-3"), or inf and nan (which the settings' checks then refuse by name). strtod also
/// reads C's hex floats ("0x10" is 16, "0x1p-3" 0.125): a typo there must not train at
/// another rate.
inline bool writtenInDecimal(const std::string& text) {
  std::string lower;
  for (const char c : text) lower += char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  const std::string unsigned_ = !lower.empty() && (lower[0] == '+' || lower[0] == '-') ? lower.substr(1) : lower;
  if (unsigned_ == "inf" || unsigned_ == "infinity" || unsigned_ == "nan") return true;
  return !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos;
}

inline std::optional<double> wholeNumber(const std::string& text) {
  if (!writtenInDecimal(text)) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

/// Where `text` is written as an integer but int64 cannot hold it, the range it can, for a
/// message that says so (saying it is no integer would send the user looking for a typo);
/// empty otherwise.
inline std::string integerOutOfRange(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno != ERANGE) return "";
  return "out of range: an integer is from -9223372036854775808 to 9223372036854775807";
}

/// Where `text` is written as a number but a double cannot hold it (1e400, 1e-400), the
/// range it can, as integerOutOfRange says; empty otherwise.
inline std::string numberOutOfRange(const std::string& text) {
  if (!writtenInDecimal(text)) return "";
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != ERANGE) return "";
  return std::isinf(value) ? "out of range: a number is at most about 1.8e308 in size"
                           : "out of range: a number other than 0 is at least about 2.2e-308 in size";
}

/// The shortest decimal text that reads back as `value`: a message quotes the number the
/// check refused ("momentum must be in [0, 1), got 1.0000001"; a stream's six digits had
/// said "got 1").
inline std::string exactNumberText(double value) {
  char text[32];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;  // nan never compares equal: "nan" at 17
  }
  return text;
}

}  // namespace ensemble
