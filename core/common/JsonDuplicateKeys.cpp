// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/JsonDuplicateKeys.h"

#include <set>
#include <vector>

#include "core/common/Error.h"

namespace ensemble {

nlohmann::json parseRefusingDuplicateKeys(const std::string& text, const std::string& what) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> openObjects;  // the keys seen so far in each enclosing object
  std::string duplicate;
  const nlohmann::json::parser_callback_t check = [&](int, Event event, nlohmann::json& parsed) {
    if (event == Event::object_start) openObjects.emplace_back();
    if (event == Event::object_end) openObjects.pop_back();
    if (event == Event::key && !openObjects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;  // every value kept: the result is json::parse's
  };
  nlohmann::json json = nlohmann::json::parse(text, check);
  if (!duplicate.empty()) {
    throw ConfigError(what + " sets \"" + duplicate + "\" twice in one object; keep one of them (JSON readers differ "
                      "on which one counts)");
  }
  return json;
}

}  // namespace ensemble
