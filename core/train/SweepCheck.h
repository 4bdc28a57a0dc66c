// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A sweep's jobs checked before the first trains, as each would be at its start: a job
// that cannot run would otherwise fail only when its turn comes, after the jobs before it
// trained for hours. The CLI's `sweep` and the window's sweep dialog both ask this.
#include "core/runs/Sweep.h"

namespace ensemble {

/// Throws ConfigError "sweep job NAME: WHY" for the first job train would refuse before it
/// trains: its settings against its devices and init_from files (checkNewRunBeforeData), its
/// dataset (read from the IDX headers alone, once per dataset), and a batch larger than its
/// training samples (the dataset's, cut by train_limit). Writes nothing.
void checkSweepJobs(const Sweep& sweep);

}  // namespace ensemble
