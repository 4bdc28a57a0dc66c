// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/config/LearningRateSchedule.h"

#include <algorithm>
#include <cmath>

namespace ensemble {

double learningRateAt(const ExperimentConfig& config, int64_t stepsDone, int64_t totalSteps) {
  switch (config.lrSchedule) {
    case LrSchedule::Constant: return config.learningRate;
    case LrSchedule::Cosine: {
      if (totalSteps <= 0) return config.learningRate;
      const double progress = double(std::clamp<int64_t>(stepsDone, 0, totalSteps)) / double(totalSteps);
      return config.learningRate * 0.5 * (1.0 + std::cos(M_PI * progress));
    }
  }
  return config.learningRate;
}

double learningRateOfStep(const ExperimentConfig& config, int64_t step, int64_t stepsPerEpoch) {
  return learningRateAt(config, step - 1, config.epochs * stepsPerEpoch);
}

}  // namespace ensemble
