#pragma once
// What an evaluation reports, as plain numbers (torch-free, so the CLI, the UI and the
// run files can use it without LibTorch).
#include <cstdint>
#include <vector>

namespace ensemble {

/// Loss (mean negative log-likelihood) and accuracy of one model on one set.
struct ModelScore {
  double loss = 0;
  double accuracy = 0;
};

/// The ensemble's prediction (mean of member probabilities) scored on a set.
struct EnsembleScore {
  double accuracy = 0;
  double nll = 0;
  double brier = 0;         ///< mean over samples of sum_k (p_k - onehot_k)^2
  double ece = 0;           ///< expected calibration error, 15 equal-width bins
  double disagreement = 0;  ///< mean pairwise share of samples where members' labels differ
};

struct EvaluationResult {
  std::vector<ModelScore> members;
  EnsembleScore ensemble;
  /// accuracyVsSize[k-1]: accuracy of the ensemble of the first k members.
  std::vector<double> accuracyVsSize;
  int64_t samples = 0;
};

}  // namespace ensemble
