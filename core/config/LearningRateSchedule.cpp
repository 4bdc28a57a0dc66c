// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/config/LearningRateSchedule.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ensemble {

bool learningRateVaries(const ExperimentConfig& config) {
  return config.lrWarmupSteps > 0 || config.lrSchedule != LrSchedule::Constant;
}

double learningRateAt(const ExperimentConfig& config, int64_t stepsDone, int64_t totalSteps) {
  const int64_t warmup = std::max<int64_t>(config.lrWarmupSteps, 0);
  if (stepsDone < warmup) return config.learningRate * double(std::max<int64_t>(stepsDone, 0) + 1) / double(warmup);
  switch (config.lrSchedule) {
    case LrSchedule::Constant: return config.learningRate;
    case LrSchedule::Cosine: {
      const int64_t steps = totalSteps - warmup;
      if (steps <= 0) return config.learningRate;
      const double progress = double(std::clamp<int64_t>(stepsDone - warmup, 0, steps)) / double(steps);
      return config.learningRate * 0.5 * (1.0 + std::cos(M_PI * progress));
    }
    case LrSchedule::Step: {
      // Each decay a product of its own, as MultiStepLR applies them (lr * 0.1 * 0.1, which
      // is not always lr * 0.01 to the last bit).
      const int64_t steps = totalSteps - warmup, done = stepsDone - warmup;
      if (steps <= 0) return config.learningRate;  // as cosine: a warmup as long as the run
      double rate = config.learningRate;
      for (const int64_t milestone : stepDecayMilestones(steps)) {
        if (done >= milestone) rate *= 0.1;
      }
      return rate;
    }
  }
  return config.learningRate;
}

std::array<int64_t, 2> stepDecayMilestones(int64_t steps) { return {(steps + 1) / 2, (3 * steps + 3) / 4}; }

double learningRateOfStep(const ExperimentConfig& config, int64_t step, int64_t stepsPerEpoch) {
  return learningRateAt(config, step - 1, config.epochs * stepsPerEpoch);
}

}  // namespace ensemble
