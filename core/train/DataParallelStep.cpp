// SPDX-License-Identifier: GPL-3.0-or-later
// Data-parallel's step: the replicas are one model. Each trains on its shard of the global
// batch (shards in global replica order, across processes), their gradients are averaged
// in one all-reduce, and every replica applies the same update, so they stay identical.
#include <torch/torch.h>

#include "core/comm/Communicator.h"
#include "core/train/EpochOrder.h"
#include "core/train/Evaluator.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"
#include "core/train/ReplicaWorkers.h"
#include "core/train/SplitOnDevices.h"
#include "core/train/TrainingStep.h"

namespace ensemble {
namespace {

namespace F = torch::nn::functional;

class DataParallelStep final : public TrainingStep {
 public:
  explicit DataParallelStep(const TrainingStepParts& parts) : m_parts(parts) {}

  void setLearningRate(double learningRate) override { ensemble::setLearningRate(m_parts.replicas, learningRate); }

  torch::Tensor train(const EpochOrder& order, int64_t begin) override {
    std::vector<Replica>& replicas = m_parts.replicas;
    Communicator& communicator = m_parts.communicator;
    const int64_t shard = m_parts.config.batchSize / int64_t(communicator.worldReplicas());
    std::vector<torch::Tensor> rows(replicas.size());
    std::vector<torch::Tensor> flatGradients(replicas.size());
    std::vector<const SplitCopy*> copies;
    for (const Replica& replica : replicas) copies.push_back(&m_parts.train.on(replica.device));
    m_parts.workers.forEach(replicas.size(), [&](std::size_t r) {
      Replica& replica = replicas[r];
      const SplitCopy& copy = *copies[r];
      const int64_t globalIndex = communicator.firstReplica() + int64_t(r);
      const torch::Tensor local = order.slice(replica.device, begin + globalIndex * shard, shard);
      const torch::Tensor labels = copy.labels.index_select(0, local);
      const AutocastScope autocast(m_parts.config.precision, replica.device.is_cuda());
      replica.optimizer->clearGradients();
      const torch::Tensor logits =
          replica.model->forward(toModelInput(copy.images.index_select(0, local))).to(torch::kFloat32);
      const torch::Tensor loss = F::cross_entropy(logits, labels);
      backwardOutsideCpuAutocast(loss);
      std::vector<torch::Tensor> grads;
      for (const auto& p : replica.model->parameters()) grads.push_back(p.grad().flatten());
      flatGradients[r] = torch::cat(grads);  // one all-reduce per step, not per tensor
      rows[r] = scoreRow(loss, logits.argmax(1).eq(labels).sum(), shard);
    });
    communicator.allReduceMean(flatGradients);
    m_parts.workers.forEach(replicas.size(), [&](std::size_t r) {
      int64_t offset = 0;
      for (auto& p : replicas[r].model->parameters()) {
        p.mutable_grad().copy_(flatGradients[r].narrow(0, offset, p.numel()).view_as(p));
        offset += p.numel();
      }
      replicas[r].optimizer->step();
    });
    for (torch::Tensor& row : rows) row = row.to(replicas.front().device);
    return torch::stack(rows);
  }

 private:
  TrainingStepParts m_parts;
};

}  // namespace

std::unique_ptr<TrainingStep> makeDataParallelStep(const TrainingStepParts& parts) {
  return std::make_unique<DataParallelStep>(parts);
}

}  // namespace ensemble
