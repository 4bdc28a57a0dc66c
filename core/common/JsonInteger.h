// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading integers from JSON that came from outside. nlohmann converts a floating-point
// number (1e30, or an integer too long for 64 bits) to an integer type with a plain cast,
// which is undefined behaviour when out of range (found by fuzzing); these refuse it.
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

namespace ensemble {

/// True when `value` is a JSON integer that T can hold.
template <typename T>
bool fitsInteger(const nlohmann::json& value) {
  static_assert(std::is_integral_v<T>, "integers only");
  if (!value.is_number_integer()) return false;
  if (value.is_number_unsigned()) return value.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max());
  const std::int64_t number = value.get<std::int64_t>();
  if constexpr (std::is_unsigned_v<T>) {
    return number >= 0 && std::uint64_t(number) <= std::uint64_t(std::numeric_limits<T>::max());
  } else {
    return number >= std::int64_t(std::numeric_limits<T>::min()) && number <= std::int64_t(std::numeric_limits<T>::max());
  }
}

/// `value` as T; throws `ErrorType(where + " must be an integer ...")` when it is not one T holds.
template <typename T, typename ErrorType>
T integerOrThrow(const nlohmann::json& value, const std::string& where) {
  if (!fitsInteger<T>(value)) {
    throw ErrorType(where + " must be an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                    std::to_string(std::numeric_limits<T>::max()) + ", got " + value.dump());
  }
  return value.get<T>();
}

}  // namespace ensemble
