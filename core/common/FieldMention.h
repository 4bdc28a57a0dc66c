// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How an engine message names what the user can change, so that each front end can say it
// in its own words (see Error.h): a setting by its config.json key, and two actions.
// phraseMessage (core/train/ConfigFields.h) turns the marks into flags, labels or keys.
#include <string>

namespace ensemble::mention {

/// A setting, by its config.json key: "{{lr}}" reads "--lr" in the CLI, "Learning rate"
/// in the window, "lr" in files.
inline std::string field(const std::string& key) { return "{{" + key + "}}"; }

/// Where a run's files go: "--out DIR" in the CLI, "another runs folder" in the window.
inline std::string outputFolder() { return "{{out}}"; }

/// How to continue the run in `runDirectory` from its last checkpoint.
inline std::string resumeCommand(const std::string& runDirectory) { return "{{resume:" + runDirectory + "}}"; }

}  // namespace ensemble::mention
