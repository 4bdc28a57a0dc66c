// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The checks a new run gets before its data is loaded, for a caller that must know that a
// setup will start before it begins another: a sweep checks every job's before the first.
#include "core/config/ExperimentConfig.h"
#include "core/comm/ProcessGroupOptions.h"

namespace ensemble {

/// Throws what Trainer::create would throw for `config` before loading its dataset: the
/// settings, the devices against the mode (replicas, members), the member form, CUDA graphs,
/// and init_from's files (each read; their count against the members). Writes nothing.
void checkNewRunBeforeData(ExperimentConfig config, const ProcessGroupOptions& group = {});

}  // namespace ensemble
