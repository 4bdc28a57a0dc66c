// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/TrainingStep.h"

#include <torch/torch.h>

#include "core/config/ExperimentConfig.h"
#include "core/config/RunMode.h"
#include "core/train/CudaGraphStep.h"
#include "core/train/Replica.h"
#include "core/train/SgdMomentum.h"

namespace ensemble {

std::unique_ptr<TrainingStep> makeTrainingStep(const TrainingStepParts& parts) {
  if (RunMode::of(parts.config.mode).stepStrategy() == StepStrategy::ShardsOfOneBatch) {
    return makeDataParallelStep(parts);  // cuda_graphs is refused for it (checkCudaGraphs)
  }
  std::unique_ptr<TrainingStep> step = makeEnsembleStep(parts);
  if (parts.config.cudaGraphs == CudaGraphs::On) {  // resolved by RunSession::prepare
    step = replayFromCudaGraph(std::move(step), parts.replicas.front().device, parts.config.batchSize);
  }
  return step;
}

void setLearningRate(std::vector<Replica>& replicas, double learningRate) {
  for (Replica& replica : replicas) replica.optimizer->setLearningRate(learningRate);
}

torch::Tensor scoreRow(const torch::Tensor& loss, const torch::Tensor& correct, int64_t samples) {
  return torch::stack({loss.detach().to(torch::kFloat64).reshape({}), correct.to(torch::kFloat64).reshape({}),
                       torch::full({}, double(samples), loss.options().dtype(torch::kFloat64))});
}

}  // namespace ensemble
