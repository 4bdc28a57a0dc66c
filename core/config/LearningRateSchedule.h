// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The learning rate of each training step, from the run's lr and lr_schedule. A function of
// the steps already taken, so a resumed run (which restores the global step) continues the
// schedule exactly, and every process of a group computes the same rate. Torch-free.
#include <cstdint>

#include "core/config/ExperimentConfig.h"

namespace ensemble {

/// The rate of the step taken after `stepsDone` of the run's `totalSteps` (epochs x steps
/// per epoch): lr for constant; for cosine lr * (1 + cos(pi * stepsDone / totalSteps)) / 2,
/// PyTorch's CosineAnnealingLR with T_max = totalSteps and eta_min = 0, so the first step
/// takes lr and the last a little above 0.
double learningRateAt(const ExperimentConfig& config, int64_t stepsDone, int64_t totalSteps);
/// The rate of step number `step` (1-based, as metrics.csv counts), in a run of
/// `stepsPerEpoch` steps an epoch: the TensorBoard log's train/learning_rate.
double learningRateOfStep(const ExperimentConfig& config, int64_t step, int64_t stepsPerEpoch);

}  // namespace ensemble
