// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/ScoreLedger.h"

#include <torch/torch.h>

#include <cmath>

#include "core/comm/Communicator.h"
#include "core/common/Error.h"
#include "core/config/RunMode.h"
#include "core/train/Divergence.h"
#include "core/train/RunState.h"

namespace ensemble {

ScoreLedger::ScoreLedger(Communicator& communicator, Setup setup)
    : m_communicator(communicator), m_setup(std::move(setup)) {}

std::size_t ScoreLedger::memberCount() const {
  return RunMode::of(m_setup.mode).modelCount(m_communicator.worldReplicas());
}

void ScoreLedger::add(torch::Tensor rows, int64_t globalStep, int64_t epoch) {
  m_pending.push_back({std::move(rows), globalStep, epoch});
}

void ScoreLedger::flush(RunState& state) {
  if (m_pending.empty()) return;
  std::vector<torch::Tensor> rows;
  for (const PendingStep& step : m_pending) rows.push_back(step.rows.to(m_pending.front().rows.device()));
  const torch::Tensor values = torch::stack(rows).cpu();  // the one wait for the device
  const auto table = values.accessor<double, 3>();
  const std::vector<PendingStep> steps = std::move(m_pending);
  m_pending.clear();
  const auto scoreAt = [&](std::size_t step, int64_t row) {
    return StepScore{table[int64_t(step)][row][0], int64_t(table[int64_t(step)][row][1]),
                     int64_t(table[int64_t(step)][row][2])};
  };
  for (std::size_t s = 0; s < steps.size(); ++s) {
    std::vector<StepScore> local;
    for (int64_t r = 0; r < m_setup.localReplicas; ++r) local.push_back(scoreAt(s, r));
    const std::vector<StepScore> scores = exchange(local);
    if (!RunMode::of(m_setup.mode).replicasAreOneModel()) {
      // The ensemble's row follows the members' (MemberAveraging.h); one member is its own ensemble.
      const StepScore ensembleScore = memberCount() == 1 ? scores.front() : scoreAt(s, m_setup.localReplicas);
      record(state, scores, ensembleScore, steps[s]);
      continue;
    }
    // One model: its loss is the mean over the equal shards, its hits their sum.
    StepScore total{0, 0, m_setup.batchSize};
    for (const StepScore& shard : scores) {
      total.loss += shard.loss / double(scores.size());
      total.correct += shard.correct;
    }
    record(state, {total}, total, steps[s]);
  }
}

std::vector<StepScore> ScoreLedger::exchange(const std::vector<StepScore>& local) {
  if (m_communicator.processCount() <= 1) return local;
  std::vector<torch::Tensor> rows;
  for (const StepScore& score : local) {
    rows.push_back(torch::tensor(
        {score.loss, double(score.correct), double(score.samples), m_localStopRequest ? 1.0 : 0.0}, torch::kFloat64));
  }
  std::vector<StepScore> all;
  for (const torch::Tensor& row : m_communicator.allGather(rows)) {
    const auto values = row.accessor<double, 1>();
    all.push_back({values[0], int64_t(values[1]), int64_t(values[2])});
    m_stopAgreed = m_stopAgreed || values[3] > 0;
  }
  return all;
}

void ScoreLedger::record(RunState& state, const std::vector<StepScore>& scores, const StepScore& ensembleScore,
                         const PendingStep& step) const {
  for (std::size_t m = 0; m < scores.size(); ++m) {
    if (std::isfinite(scores[m].loss)) continue;
    throw DivergenceError(
        divergenceMessage("the training loss of " +
                              (memberCount() > 1 ? "member " + std::to_string(m) : std::string("the model")) +
                              " became " + (std::isnan(scores[m].loss) ? "NaN" : "infinite") +
                              atStep(step.globalStep, step.epoch),
                          m_setup.learningRate, m_setup.weightDecay, m_setup.runPath),
        step.globalStep - 1,
        // The loss was taken before the step's update, on the weights of the step before:
        // those gave it, and the ones before them are the last that gave a finite loss.
        step.globalStep - 2);
  }
  for (std::size_t m = 0; m < scores.size(); ++m) {
    state.window[m].add(scores[m].loss, scores[m].correct, scores[m].samples);
    state.epochTotals[m].add(scores[m].loss, scores[m].correct, scores[m].samples);
  }
  state.window.back().add(ensembleScore.loss, ensembleScore.correct, ensembleScore.samples);
  state.epochTotals.back().add(ensembleScore.loss, ensembleScore.correct, ensembleScore.samples);
}

}  // namespace ensemble
