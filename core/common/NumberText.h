// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A number typed as text, all of it: "12" reads 12, "12x", "" or "1e99999" read nothing.
// The CLI's flags and the bench's arguments are parsed through it, each front end saying
// in its own words what was wrong.
#include <cstdint>
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

inline std::optional<double> wholeNumber(const std::string& text) {
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace ensemble
