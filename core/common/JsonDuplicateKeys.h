// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// JSON that a person writes (a config, a sweep), parsed with every object's keys checked:
// nlohmann's parser, as most, keeps the last of two equal keys without a word, so a config
// that sets "lr" twice would train with the second and the user would never know which.
#include <nlohmann/json.hpp>

#include <string>

namespace ensemble {

/// `text` parsed as nlohmann::json::parse parses it (and throwing its exceptions where `text`
/// is not JSON). Where one object holds a key twice, throws ConfigError: "`what` sets "lr"
/// twice in one object; ...". Keys are counted per object: one in two objects is no duplicate.
nlohmann::json parseRefusingDuplicateKeys(const std::string& text, const std::string& what);

}  // namespace ensemble
