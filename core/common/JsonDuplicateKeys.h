// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// JSON that a person writes (a config, a sweep), parsed with every object's keys checked:
// nlohmann's parser, as most, keeps the last of two equal keys without a word, so a config
// that sets "lr" twice would train with the second and the user would never know which.
#include <nlohmann/json.hpp>

#include <string>

namespace ensemble {

/// `text` parsed as nlohmann::json::parse parses it (and throwing as it throws), with the first
/// key found twice in one object in `duplicate` ("" where none is).
nlohmann::json parseNotingDuplicateKeys(const std::string& text, std::string& duplicate);

/// The first key found twice in one object of JSON `text`, or "" where none is.
std::string firstDuplicateKey(const std::string& text);

}  // namespace ensemble
