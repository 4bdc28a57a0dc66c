// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The books of a run's training scores, from the device to the running means of RunState:
// steps' score rows wait on the device (reading them every step would make the host wait
// for a GPU after each step) until flush() reads them back in one transfer, exchanges them
// with the other processes of the group, refuses a diverged step, and adds them to the
// means that metrics.csv and the live curves show. The exchange also carries each
// process's stop request, so every rank of a group stops at the same step.
#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/ExperimentConfig.h"

namespace ensemble {

class Communicator;
struct RunState;

/// Per-step numbers of one model: mean loss over its samples and correct predictions.
struct StepScore {
  double loss = 0;
  int64_t correct = 0;
  int64_t samples = 0;
};

class ScoreLedger final {
 public:
  struct Setup {
    int localReplicas = 1;
    TrainingMode mode = TrainingMode::Ensemble;  ///< data-parallel replicas are shards of one model
    int64_t batchSize = 0;      ///< samples per member (the global batch in data-parallel)
    double learningRate = 0;    ///< named in the divergence message
    double weightDecay = 0;     ///< named in it where it is what diverged
    std::string runPath;        ///< named in the divergence message
  };
  ScoreLedger(Communicator& communicator, Setup setup);

  /// Queues a step's rows (TrainingStep::train's result) for `globalStep` (1-based) in
  /// `epoch` (1-based).
  void add(torch::Tensor rows, int64_t globalStep, int64_t epoch);
  bool empty() const { return m_pending.empty(); }
  /// Enough steps are queued that they should be read back.
  bool full() const { return m_pending.size() >= kMaxPendingSteps; }

  /// Reads every queued step back, in order, and adds its scores to `state`'s window and
  /// epoch totals (members, then the ensemble). Throws DivergenceError naming the model and
  /// step for a non-finite loss, before anything of that step is recorded. In a group,
  /// every process must call it for the same steps (an all-gather per step).
  void flush(RunState& state);

  /// This process's stop request, sent with the next exchange.
  void setLocalStopRequest(bool requested) { m_localStopRequest = requested; }
  /// Some process of the group asked to stop (known after an exchange).
  bool stopAgreed() const { return m_stopAgreed; }

 private:
  static constexpr std::size_t kMaxPendingSteps = 64;
  struct PendingStep {
    torch::Tensor rows;  ///< float64 [rows, 3]: loss, correct, samples
    int64_t globalStep = 0;
    int64_t epoch = 0;
  };
  std::size_t memberCount() const;
  /// Every replica's step score from every process, and whether any process asked to stop
  /// (one small all-gather; nothing to do in a single process).
  std::vector<StepScore> exchange(const std::vector<StepScore>& local);
  void record(RunState& state, const std::vector<StepScore>& scores, const StepScore& ensembleScore,
              const PendingStep& step) const;

  Communicator& m_communicator;
  Setup m_setup;
  std::vector<PendingStep> m_pending;
  bool m_localStopRequest = false;  ///< this process was asked to stop (signal, UI)
  bool m_stopAgreed = false;        ///< some process of the group was; all stop together
};

}  // namespace ensemble
