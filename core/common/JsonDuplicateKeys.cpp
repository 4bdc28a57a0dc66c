// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/JsonDuplicateKeys.h"

#include <set>
#include <vector>

namespace ensemble {

nlohmann::json parseNotingDuplicateKeys(const std::string& text, std::string& duplicate) {
  using Event = nlohmann::json::parse_event_t;
  std::vector<std::set<std::string>> openObjects;  // the keys seen so far in each enclosing object
  duplicate.clear();
  const nlohmann::json::parser_callback_t check = [&](int, Event event, nlohmann::json& parsed) {
    if (event == Event::object_start) openObjects.emplace_back();
    if (event == Event::object_end) openObjects.pop_back();
    if (event == Event::key && !openObjects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;  // every value kept: the result is json::parse's
  };
  return nlohmann::json::parse(text, check);
}

std::string firstDuplicateKey(const std::string& text) {
  std::string duplicate;
  parseNotingDuplicateKeys(text, duplicate).clear();
  return duplicate;
}

}  // namespace ensemble
