// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run whose numbers stop being finite is stopped, saying where and what to do. The training
// loss shows it first (ScoreLedger), but not where the last step's update is what ruined the
// weights: its loss was measured before the update. The epoch's evaluation then meets them
// first, and refuseNonFiniteTestLoss stops the run there, before their NaN is written to
// metrics.csv or to a checkpoint's record (RunSession::finishEpoch, evaluateMidEpoch).
#include <cstdint>
#include <string>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

/// "<what happened>; the learning rate ... is probably too high, try a smaller lr. The metrics
/// so far are kept in <runPath>": the message of the DivergenceError each check throws. Where
/// lr x weight decay takes a tenth of every weight or more a step, the weight decay is named.
std::string divergenceMessage(const std::string& whatHappened, double learningRate, double weightDecay,
                              const std::string& runPath);

/// What a diverged run's checkpoints hold, for its message: whether the last one holds the
/// weights whose loss was not finite (written after `lastGoodWeights`, see DivergenceError:
/// resuming it diverges again at once), and the one before it. Their loss was finite, which
/// is all that is known of them: weights one step from a divergence may be finite yet huge,
/// so nothing is promised of them. Empty where there is nothing to say (a damaged pointer).
std::string checkpointsAfterDivergence(const std::string& checkpointsDir, int64_t lastGoodWeights);

/// " at step N (epoch E)".
std::string atStep(int64_t step, int64_t epoch);

/// What a run's position and settings add to the messages.
struct DivergencePlace {
  int64_t step = 0;   ///< the last step trained (its update made the weights checked)
  int64_t epoch = 0;  ///< its epoch, from 1
  double learningRate = 0;
  double weightDecay = 0;
  std::string runPath;
};

/// Throws DivergenceError (last finite step: the one before) if a model's test loss is NaN or
/// infinite; `oneModel`: the result has one model, named "the model".
void refuseNonFiniteTestLoss(const EvaluationResult& test, bool oneModel, const DivergencePlace& place);

}  // namespace ensemble
