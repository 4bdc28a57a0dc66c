// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// nlohmann's exception texts ("[json.exception.out_of_range.403] key 'base' not found") in
// the words a message to a user needs: what is wrong in the file, without the library's codes.
#include <nlohmann/json.hpp>

#include <string>

namespace ensemble {

/// What `error` says is wrong, e.g. `it is not valid JSON at byte 2`, `it has no "base"`,
/// `the number 1e999 is too large`, `a value has the wrong type (cannot use at() with string)`.
std::string plainJsonError(const nlohmann::json::exception& error);

}  // namespace ensemble
