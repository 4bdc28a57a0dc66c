// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How an engine message names what the user can change, so that each front end can say it
// in its own words (see Error.h): a setting by its config.json key, and a few actions.
// phraseMessage (core/config/ConfigFields.h) turns the marks into flags, labels or keys.
#include <string>

namespace ensemble::mention {

/// A setting, by its config.json key: "{{lr}}" reads "--lr" in the CLI, "Learning rate"
/// in the window, "lr" in files.
inline std::string field(const std::string& key) { return "{{" + key + "}}"; }

/// Where a run's files go: "--out DIR" in the CLI, "another runs folder (ensemble-lab --runs
/// DIR)" in the window, which opens on one runs folder.
inline std::string outputFolder() { return "{{out}}"; }

/// How to continue the run in `runDirectory` from its last checkpoint.
inline std::string resumeCommand(const std::string& runDirectory) { return "{{resume:" + runDirectory + "}}"; }

/// Where the devices this machine has are listed: `ensemble-lab-cli devices` in the CLI,
/// the Experiment panel's device list in the window.
inline std::string listDevices() { return "{{devices-list}}"; }

/// The out-of-distribution dataset of an evaluation: "--ood" in the CLI, the Uncertainty
/// tab's "Out-of-distribution dataset" in the window.
inline std::string oodDataset() { return "{{ood}}"; }

/// How to start a run afresh: `ensemble-lab-cli train` in the CLI, Start in the window.
inline std::string startRun() { return "{{start-run}}"; }

/// How to start a sweep: `ensemble-lab-cli sweep --grid ...` in the CLI, Run > New sweep in
/// the window.
inline std::string startSweep() { return "{{start-sweep}}"; }

/// How to continue the sweep in `folder`: `ensemble-lab-cli sweep --resume FOLDER` in the
/// CLI, Run > Open sweep in the window.
inline std::string continueSweep(const std::string& folder) { return "{{continue-sweep:" + folder + "}}"; }

}  // namespace ensemble::mention
