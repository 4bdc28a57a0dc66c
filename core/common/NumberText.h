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
