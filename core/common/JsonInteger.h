// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading integers from JSON that came from outside. nlohmann converts a floating-point
// number (1e30, or an integer too long for 64 bits) to an integer type with a plain cast,
// which is undefined behaviour when out of range (found by fuzzing); these refuse it.
#include <cmath>
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
  if (fitsInteger<T>(value)) return value.get<T>();
  // A fraction or a string is no integer at all: told as such, not as out of a range (a
  // replica count of 2.5 had read "must be an integer from -9223372036854775808 to ...").
  const double number = value.is_number() ? value.get<double>() : 0.0;
  const bool outOfRange = value.is_number_integer() ||
                          (value.is_number_float() && std::isfinite(number) && std::trunc(number) == number &&
                           (number < double(std::numeric_limits<T>::min()) || number > double(std::numeric_limits<T>::max())));
  if (!outOfRange) throw ErrorType(where + " must be an integer, got " + value.dump());
  throw ErrorType(where + " must be an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
                  std::to_string(std::numeric_limits<T>::max()) + ", got " + value.dump());
}

}  // namespace ensemble
