// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `train`, `resume` and `sweep` share: the config the flags describe, and a run
// trained with the progress on stderr and Ctrl+C as a clean stop.
#include <string>

#include "app/cli/CliOptions.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/TrainingEvents.h"

namespace ensemble {
class Trainer;
}

namespace ensemble::cli {

/// The config of --config (or the defaults) with every config field's flag laid over it.
ExperimentConfig configFromOptions(const CliOptions& options);

/// Trains `trainer` to the end, a stop (SIGINT, SIGTERM) or a failure, printing progress
/// and the result or the message; returns how it finished.
RunFinishedEvent trainAndReport(Trainer& trainer);

/// From now on the first SIGINT or SIGTERM asks for a clean stop (the run trainAndReport is
/// training stops at its next step) instead of ending the process; a second ends it.
/// trainAndReport calls it; a sweep calls it before its first job, so that a signal between
/// jobs stops the sweep too.
void catchStopSignals();
/// Whether a stop signal came since catchStopSignals.
bool stopSignalled();
/// The exit status of a run or a sweep that a stop signal stopped (resumable): 128 + SIGINT,
/// what shells report for a Ctrl+C.
inline constexpr int kExitInterrupted = 130;

/// Warns on stderr where `run`'s metrics.csv ends in a row cut short (a copy or a disk that
/// lost its tail), naming the file and the line, and `whatBecomesOfIt` ("the export leaves
/// it out"): readers skip such a row, which would otherwise go without a word.
void warnOfARowCutShort(const std::string& run, const std::string& whatBecomesOfIt);

/// An engine message in the CLI's words: the settings it names as flags (Error.h), and where
/// it says to write elsewhere, the flags by which `command` is told where to write.
std::string inFlags(const std::string& message, const std::string& command = "train");

}  // namespace ensemble::cli
