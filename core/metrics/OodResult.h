// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How well a run's uncertainty tells its own test set (in-distribution) from another
// dataset (out-of-distribution), as AUROCs. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// Area under the ROC curve of flagging an image as out-of-distribution when a score of
/// its uncertainty is high: 0.5 is chance, 1.0 separates the sets perfectly.
struct OodAuroc {
  double maxProbability = 0;     ///< uncertainty = 1 - the highest class probability
  double entropy = 0;            ///< uncertainty = the predictive entropy
  double mutualInformation = 0;  ///< the ensemble only: entropy of the mean minus the members' mean entropy
};

struct OodResult {
  std::string dataset;  ///< the out-of-distribution set, as given
  int64_t inSamples = 0;
  int64_t outSamples = 0;
  std::vector<OodAuroc> members;  ///< mutualInformation unused
  OodAuroc ensemble;
  /// The ensemble's predictive entropy (nats) of each image in and out of distribution:
  /// the scores behind ensemble.entropy, for histograms.
  std::vector<double> ensembleEntropyIn, ensembleEntropyOut;
};

}  // namespace ensemble
