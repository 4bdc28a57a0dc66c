// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/TrainingStep.h"

#include <torch/torch.h>

#include "core/config/ExperimentConfig.h"
#include "core/config/RunMode.h"

namespace ensemble {

std::unique_ptr<TrainingStep> makeTrainingStep(const TrainingStepParts& parts) {
  switch (RunMode::of(parts.config.mode).stepStrategy()) {
    case StepStrategy::ShardsOfOneBatch: return makeDataParallelStep(parts);
    case StepStrategy::MembersOnOneBatch: break;
  }
  return makeEnsembleStep(parts);
}

torch::Tensor scoreRow(const torch::Tensor& loss, const torch::Tensor& correct, int64_t samples) {
  return torch::stack({loss.detach().to(torch::kFloat64).reshape({}), correct.to(torch::kFloat64).reshape({}),
                       torch::full({}, double(samples), loss.options().dtype(torch::kFloat64))});
}

}  // namespace ensemble
