// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/JsonErrorText.h"

namespace ensemble {
namespace {

/// The text between the first pair of single quotes in `what`, or "".
std::string quoted(const std::string& what) {
  const std::size_t open = what.find('\'');
  const std::size_t close = open == std::string::npos ? open : what.find('\'', open + 1);
  return close == std::string::npos ? std::string() : what.substr(open + 1, close - open - 1);
}

/// `what` without its "[json.exception.kind.N] " prefix.
std::string withoutCode(const std::string& what) {
  const std::size_t end = what.find("] ");
  return what.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? what.substr(end + 2) : what;
}

}  // namespace

std::string plainJsonError(const nlohmann::json::exception& error) {
  const std::string what = error.what();
  if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&error)) {
    return "it is not valid JSON (at byte " + std::to_string(parse->byte) + ")";
  }
  // Ids as nlohmann documents them: 403 a missing key, 406 a number a double cannot hold.
  if (error.id == 403 && !quoted(what).empty()) return "it has no \"" + quoted(what) + "\"";
  if (error.id == 406) return "the number " + quoted(what) + " is too large for a double";
  if (dynamic_cast<const nlohmann::json::type_error*>(&error)) {
    return "a value has the wrong type (" + withoutCode(what) + ")";
  }
  return withoutCode(what);
}

}  // namespace ensemble
