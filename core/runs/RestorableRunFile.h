// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run file that is missing but that the run's checkpoint can write again (config.json,
// metrics.csv): the error says how, where the file's own open error said only "No such file
// or directory". For every reader of run folders: one run's export, the runs' table and
// curves. Torch-free.
#include <string>

namespace ensemble {

class RunDirectory;

/// Throws IoError where `path` (a file of `run`) is missing and `run` holds a checkpoint,
/// naming the file and the resume command that writes it again; returns otherwise (the
/// reader's own error then says what is wrong).
void requireRestorable(const RunDirectory& run, const std::string& path);

}  // namespace ensemble
