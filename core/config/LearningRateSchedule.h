// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The learning rate of each training step, from the run's lr, lr_warmup_steps and
// lr_schedule. A function of the steps already taken, so a resumed run (which restores the
// global step) continues the schedule exactly, and every process of a group computes the
// same rate. Torch-free.
#include <array>
#include <cstdint>

#include "core/config/ExperimentConfig.h"

namespace ensemble {

/// Whether the rate moves during the run (a warmup or a schedule other than constant): then
/// the trainer sets it before every step (a CUDA graph's update reads it from the GPU:
/// SgdMomentum::setLearningRate), and the progress lines say it.
bool learningRateVaries(const ExperimentConfig& config);
/// The rate of the step taken after `stepsDone` of the run's `totalSteps` (epochs x steps
/// per epoch). With W = lr_warmup_steps, the first W steps take lr * (stepsDone + 1) / W
/// (lr / W first, lr at step W). After them, over the T = totalSteps - W steps left and the
/// t = stepsDone - W of them done: lr for constant; for cosine lr * (1 + cos(pi * t / T)) / 2,
/// PyTorch's CosineAnnealingLR with T_max = T and eta_min = 0, so the first step after the
/// warmup takes lr and the last a little above 0. For step, lr times 0.1 for each milestone
/// (stepDecayMilestones(T)) that t has reached: MultiStepLR with gamma 0.1, stepped every step.
double learningRateAt(const ExperimentConfig& config, int64_t stepsDone, int64_t totalSteps);
/// Where the step schedule divides the rate by 10, in steps after the warmup, of `steps` in
/// all: half and three quarters of them, rounded up, so the first half trains at lr (4 steps:
/// 2 and 3; 10: 5 and 8; 1: none within the run).
std::array<int64_t, 2> stepDecayMilestones(int64_t steps);
/// The rate of step number `step` (1-based, as metrics.csv counts), in a run of
/// `stepsPerEpoch` steps an epoch: the TensorBoard log's train/learning_rate.
double learningRateOfStep(const ExperimentConfig& config, int64_t step, int64_t stepsPerEpoch);

}  // namespace ensemble
