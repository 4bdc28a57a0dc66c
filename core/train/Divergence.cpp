// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Divergence.h"

#include <cmath>
#include <filesystem>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/common/NumberText.h"
#include "core/io/Checkpoint.h"

namespace ensemble {

namespace {

// Where lr x weight decay reaches this, each step takes a tenth of every weight or more off
// it (1e-4 to 5e-4 at lr 0.1, the usual, take 1e-5 to 5e-5), and where the decay is itself
// far above the usual, it is the decay, not the rate, that is to be lowered (a rate of 1e9
// with the usual decay is the rate's fault).
constexpr double kDecayPerStepTooHigh = 0.1;
constexpr double kUnusualWeightDecay = 0.01;

std::string numberText(double value) { return exactNumberText(value); }

}  // namespace

std::string divergenceMessage(const std::string& whatHappened, double learningRate, double weightDecay,
                              const std::string& runPath) {
  const std::string kept = ". The metrics so far are kept in " + runPath;
  if (learningRate * weightDecay >= kDecayPerStepTooHigh && weightDecay >= kUnusualWeightDecay) {
    return whatHappened + "; the weight decay " + numberText(weightDecay) + " is probably too high at learning rate " +
           numberText(learningRate) + " (each step takes lr x weight decay = " + numberText(learningRate * weightDecay) +
           " times every weight off it; 1e-4 to 5e-4 is usual), try a smaller " + mention::field("weight_decay") + kept;
  }
  return whatHappened + "; the learning rate " + numberText(learningRate) + " is probably too high, try a smaller " +
         mention::field("lr") + kept;
}

std::string checkpointsAfterDivergence(const std::string& checkpointsDir, int64_t lastGoodWeights) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(checkpointsDir) / "latest", ec)) {
    return "No checkpoint was written before it.";
  }
  std::string latest;
  try {
    latest = latestCheckpoint(checkpointsDir);
  } catch (const Error&) {
    return "";  // a damaged pointer: resume and eval say what is wrong with it
  }
  std::string good = latest;
  while (!good.empty() && checkpointStep(good) > lastGoodWeights) good = checkpointBefore(good);
  if (good == latest) return "The last checkpoint, " + latest + ", holds weights from before it diverged.";
  const std::string bad = "The last checkpoint, " + latest + ", holds the weights whose loss was not finite (resuming it repeats this)";
  if (good.empty()) return bad + ", and no earlier one is kept.";
  return bad + "; the one before, " + good + ", holds those of the step before.";
}

std::string atStep(int64_t step, int64_t epoch) {
  return " at step " + std::to_string(step) + " (epoch " + std::to_string(epoch) + ")";
}

void refuseNonFiniteTestLoss(const EvaluationResult& test, bool oneModel, const DivergencePlace& place) {
  for (std::size_t m = 0; m < test.members.size(); ++m) {
    const double loss = test.members[m].loss;
    if (std::isfinite(loss)) continue;
    const std::string model = oneModel ? "the model" : "member " + std::to_string(m);
    throw DivergenceError(divergenceMessage("the test loss of " + model + " became " +
                                                (std::isnan(loss) ? "NaN" : "infinite") + " after the update" +
                                                atStep(place.step, place.epoch) +
                                                ": its weights no longer give finite numbers",
                                            place.learningRate, place.weightDecay, place.runPath),
                          place.step - 1,
                          // This step's update made the weights checked; the ones before it
                          // gave a finite training loss.
                          place.step - 1);
  }
}

}  // namespace ensemble
