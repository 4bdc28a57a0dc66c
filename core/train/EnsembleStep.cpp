// SPDX-License-Identifier: GPL-3.0-or-later
// The ensemble's step: every member trains on the same batch, drawn once per device, and
// the ensemble's row scores the average of their probabilities (MemberAveraging.h).
// Members sharing a device train either separately, side by side on the CPU cores, or
// stacked into one network (member form "stacked", core/models/StackedCnn.h).
#include <torch/torch.h>

#include <map>
#include <string>

#include "core/common/FieldMention.h"
#include "core/comm/Communicator.h"
#include "core/common/Error.h"
#include "core/devices/DeviceSpec.h"
#include "core/models/StackedCnn.h"
#include "core/train/EpochOrder.h"
#include "core/train/Evaluator.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/MemberAveraging.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"
#include "core/train/ReplicaWorkers.h"
#include "core/train/SplitOnDevices.h"
#include "core/train/TrainingStep.h"

namespace ensemble {
namespace {

namespace F = torch::nn::functional;

/// One step's batch on one device.
struct Batch {
  torch::Tensor inputs;  ///< float [B, C, H, W]
  torch::Tensor labels;
};

class EnsembleStep final : public TrainingStep {
 public:
  explicit EnsembleStep(const TrainingStepParts& parts) : m_parts(parts) {
    if (parts.config.memberForm == MemberForm::Stacked) stackMembers();
  }

  // On the optimizers that step: the stacked network's, else each member's. A rate is a
  // write to the device per optimizer, outside a CUDA graph's one launch.
  void setLearningRate(double learningRate) override {
    if (m_stackedOptimizer) m_stackedOptimizer->setLearningRate(learningRate);
    else ensemble::setLearningRate(m_parts.replicas, learningRate);
  }

  torch::Tensor train(const EpochOrder& order, int64_t begin) override {
    std::vector<Replica>& replicas = m_parts.replicas;
    std::map<std::string, Batch> batches;
    for (const Replica& replica : replicas) {
      const std::string key = replica.device.str();
      if (!batches.count(key)) {
        const SplitCopy& copy = m_parts.train.on(replica.device);
        const torch::Tensor local = order.slice(replica.device, begin, m_parts.config.batchSize);
        batches[key] = {toModelInput(copy.images.index_select(0, local)), copy.labels.index_select(0, local)};
      }
    }
    if (m_stacked && m_parts.communicator.processCount() == 1) {  // every member is here: one batch of rows
      const Batch& batch = batches.begin()->second;
      const StackedOutputs outputs = trainStacked(batch);
      return stackedScoreRows(outputs.losses, outputs.logits, batch.labels, m_parts.config.batchSize);
    }
    std::vector<torch::Tensor> probabilities(replicas.size());
    std::vector<torch::Tensor> rows =
        m_stacked ? stackedRowsAcrossProcesses(batches.begin()->second, probabilities)
                  : trainSeparately(batches, probabilities);
    const torch::Device first = replicas.front().device;
    for (torch::Tensor& row : rows) row = row.to(first);
    if (m_parts.communicator.worldReplicas() > 1) {
      rows.push_back(averageMembersAndScore(m_parts.communicator, probabilities, batches[first.str()].labels));
    }
    return torch::stack(rows);
  }

 private:
  /// Each member on its device's batch, side by side; leaves each member's softmax
  /// probabilities in `probabilities` and returns its score row.
  std::vector<torch::Tensor> trainSeparately(const std::map<std::string, Batch>& batches,
                                             std::vector<torch::Tensor>& probabilities) {
    const ExperimentConfig& config = m_parts.config;
    std::vector<torch::Tensor> rows(m_parts.replicas.size());
    m_parts.workers.forEach(m_parts.replicas.size(), [&](std::size_t r) {
      Replica& replica = m_parts.replicas[r];
      const Batch& batch = batches.at(replica.device.str());
      const AutocastScope autocast(config.precision, replica.device.is_cuda());
      replica.optimizer->clearGradients();
      const torch::Tensor logits = replica.model->forward(batch.inputs).to(torch::kFloat32);
      const torch::Tensor loss = F::cross_entropy(logits, batch.labels);
      backwardOutsideCpuAutocast(loss);
      replica.optimizer->step();
      probabilities[r] = torch::softmax(logits.detach(), 1);
      rows[r] = scoreRow(loss, logits.argmax(1).eq(batch.labels).sum(), config.batchSize);
    });
    return rows;
  }

  struct StackedOutputs {
    torch::Tensor losses;  ///< each member's mean loss [members]
    torch::Tensor logits;  ///< float [members, batch, classes], detached
  };

  /// Every member at once as the stacked network; same outputs as trainSeparately.
  StackedOutputs trainStacked(const Batch& batch) {
    const AutocastScope autocast(m_parts.config.precision, batch.inputs.is_cuda());
    m_stackedOptimizer->clearGradients();
    const torch::Tensor logits = m_stacked->forward(batch.inputs).to(torch::kFloat32);  // [members, batch, classes]
    const int64_t members = logits.size(0);
    // Each member's mean loss; their sum's gradient is each member's own.
    const torch::Tensor losses = F::cross_entropy(logits.flatten(0, 1), batch.labels.repeat({members}),
                                                  F::CrossEntropyFuncOptions().reduction(torch::kNone))
                                     .view({members, -1})
                                     .mean(1);
    backwardOutsideCpuAutocast(losses.sum());
    m_stackedOptimizer->step();
    return {losses.detach(), logits.detach()};
  }

  /// trainStacked where other processes hold members too: each member's softmax in
  /// `probabilities`, for the group's average, and its score row.
  std::vector<torch::Tensor> stackedRowsAcrossProcesses(const Batch& batch, std::vector<torch::Tensor>& probabilities) {
    const StackedOutputs outputs = trainStacked(batch);
    const torch::Tensor softmax = torch::softmax(outputs.logits, 2);
    for (int64_t m = 0; m < softmax.size(0); ++m) probabilities[std::size_t(m)] = softmax[m];
    return stackedMemberRows(outputs.losses, outputs.logits, batch.labels, m_parts.config.batchSize).unbind(0);
  }

  void stackMembers() {
    std::vector<Replica>& replicas = m_parts.replicas;
    for (const Replica& replica : replicas) {
      if (replica.deviceRef.str() != replicas.front().deviceRef.str()) {
        std::vector<DeviceRef> devices;
        for (const Replica& r : replicas) devices.push_back(r.deviceRef);
        throw ConfigError("member form 'stacked' trains the members of one device as one network, but these "
                          "members are spread over " + formatDevices(devices) +
                          "; give them one device (e.g. " + mention::field("devices") + " cpu*4 or cuda:0*4) or use " +
                          mention::field("member_form") + " separate", "member_form");
      }
    }
    std::vector<std::shared_ptr<ClassifierImpl>> models;
    std::vector<SgdMomentum*> optimizers;
    for (Replica& replica : replicas) {
      models.push_back(replica.model);
      optimizers.push_back(replica.optimizer.get());
    }
    m_stacked = StackedCnn(models);
    m_stackedOptimizer = std::make_unique<SgdMomentum>(m_stacked->parameters(), m_parts.config.learningRate,
                                                       m_parts.config.momentum, m_parts.config.weightDecay);
    SgdMomentum::shareStackedBuffers(*m_stackedOptimizer, optimizers);
  }

  TrainingStepParts m_parts;
  /// With member form "stacked": the members as one network (their parameters are views
  /// of its stacks) and its optimizer (their momentum buffers are views of its buffers).
  StackedCnn m_stacked{nullptr};
  std::unique_ptr<SgdMomentum> m_stackedOptimizer;
};

}  // namespace

std::unique_ptr<TrainingStep> makeEnsembleStep(const TrainingStepParts& parts) {
  return std::make_unique<EnsembleStep>(parts);
}

}  // namespace ensemble
