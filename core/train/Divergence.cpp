// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Divergence.h"

#include <cmath>
#include <sstream>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"

namespace ensemble {

std::string divergenceMessage(const std::string& whatHappened, double learningRate, const std::string& runPath) {
  std::ostringstream lr;
  lr << learningRate;
  return whatHappened + "; the learning rate " + lr.str() + " is probably too high, try a smaller " +
         mention::field("lr") + ". The metrics so far and the last good checkpoint, if one was written, are kept in " +
         runPath;
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
                                            place.learningRate, place.runPath),
                          place.step - 1);
  }
}

}  // namespace ensemble
