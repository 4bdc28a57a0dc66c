// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/config/RunMode.h"

#include "core/common/Error.h"
#include "core/common/FieldMention.h"

namespace ensemble {
namespace {

/// Ensemble and single: every replica is a model of its own, seeded apart, on the whole batch.
class SeparateModels : public RunMode {
 public:
  StepStrategy stepStrategy() const override { return StepStrategy::MembersOnOneBatch; }
  std::size_t modelCount(int worldReplicas) const override { return std::size_t(worldReplicas); }
  std::size_t modelOfReplica(int firstReplica, std::size_t localReplica) const override {
    return std::size_t(firstReplica) + localReplica;
  }
  int64_t batchPerReplica(int64_t batchSize, int64_t) const override { return batchSize; }
};

class EnsembleMode final : public SeparateModels {
 public:
  TrainingMode kind() const override { return TrainingMode::Ensemble; }
  Averaged averaged() const override { return Averaged::Probabilities; }
  bool recordsEnsembleRow() const override { return true; }
  void checkReplicas(int, int64_t, int64_t, const std::string&) const override {}
  std::string defaultDevices(int cudaCount) const override {
    // One member per GPU where there are several (pmap's layout); on one GPU the CPU's four
    // members share it, stacked and replayed from a CUDA graph (member_form and cuda_graphs
    // auto): one member would be no ensemble.
    return cudaCount > 1 ? "all" : cudaCount == 1 ? "cuda:0*4" : "cpu*4";
  }
};

class SingleMode final : public SeparateModels {
 public:
  TrainingMode kind() const override { return TrainingMode::Single; }
  Averaged averaged() const override { return Averaged::Nothing; }
  bool recordsEnsembleRow() const override { return false; }
  void checkReplicas(int processes, int64_t replicasHere, int64_t, const std::string& spec) const override {
    if (processes > 1) {
      throw ConfigError("single mode trains one model in one process; across " + std::to_string(processes) +
                            " processes use " + mention::field("mode") + " ensemble or data-parallel",
                        "mode");
    }
    if (replicasHere != 1) {
      throw ConfigError("single mode trains one model on one device, but the device spec '" + spec + "' names " +
                            std::to_string(replicasHere) + " replicas; use " + mention::field("mode") +
                            " ensemble or data-parallel, or one device",
                        "devices");
    }
  }
  std::string defaultDevices(int cudaCount) const override { return cudaCount > 0 ? "cuda:0" : "cpu"; }
};

class DataParallelMode final : public RunMode {
 public:
  TrainingMode kind() const override { return TrainingMode::DataParallel; }
  Averaged averaged() const override { return Averaged::Gradients; }
  StepStrategy stepStrategy() const override { return StepStrategy::ShardsOfOneBatch; }
  std::size_t modelCount(int) const override { return 1; }
  std::size_t modelOfReplica(int, std::size_t) const override { return 0; }
  bool recordsEnsembleRow() const override { return false; }
  int64_t batchPerReplica(int64_t batchSize, int64_t groupReplicas) const override {
    return batchSize / groupReplicas;
  }
  void checkReplicas(int processes, int64_t replicasHere, int64_t batchSize, const std::string&) const override {
    const int64_t groupReplicas = replicasHere * processes;
    if (batchSize % groupReplicas != 0) {
      // The nearest batch sizes that split evenly, as what to do (one where the batch is
      // smaller than the replicas: every replica needs an image).
      const int64_t below = batchSize / groupReplicas * groupReplicas, above = below + groupReplicas;
      const std::string sizes = below > 0 ? std::to_string(below) + " or " + std::to_string(above) : std::to_string(above);
      throw ConfigError("data-parallel splits the batch evenly: batch size " + std::to_string(batchSize) +
                            " is not a multiple of the " + std::to_string(groupReplicas) + " replicas; use batch size " +
                            sizes + ", or a number of replicas that divides " + std::to_string(batchSize),
                        "batch_size");
    }
  }
  std::string defaultDevices(int cudaCount) const override { return cudaCount > 1 ? "all" : "cpu*2"; }
};

}  // namespace

const RunMode& RunMode::of(TrainingMode mode) {
  static const EnsembleMode ensemble;
  static const SingleMode single;
  static const DataParallelMode dataParallel;
  switch (mode) {
    case TrainingMode::Single: return single;
    case TrainingMode::DataParallel: return dataParallel;
    case TrainingMode::Ensemble: break;
  }
  return ensemble;
}

void checkNewEnsembleHasMembers(TrainingMode mode, int processes, int64_t replicasHere, const std::string& devices) {
  if (mode != TrainingMode::Ensemble || processes > 1 || replicasHere > 1) return;
  throw ConfigError("an ensemble needs two members or more, but the devices (" + devices + ") hold one; name more "
                        "devices or replicas (" + devices + "*4 is four members there), or use " +
                        mention::field("mode") + " single for one model",
                    "devices");
}

}  // namespace ensemble
