// SPDX-License-Identifier: GPL-3.0-or-later
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

/// One prediction (a member's, or the members' scores averaged) on a labelled test set:
/// its NLL and accuracy first, as ModelScore, then how far its probabilities can be
/// trusted.
struct TestScore {
  double loss = 0;          ///< mean negative log-likelihood of the true class
  double accuracy = 0;
  double brier = 0;         ///< mean over samples of sum_k (p_k - onehot_k)^2
  double ece = 0;           ///< expected calibration error, 15 equal-width bins
};

/// The ensemble's prediction (mean of member probabilities) scored on a set.
struct EnsembleScore {
  double accuracy = 0;
  double nll = 0;
  double brier = 0;         ///< mean over samples of sum_k (p_k - onehot_k)^2
  double ece = 0;           ///< expected calibration error, 15 equal-width bins
  double disagreement = 0;  ///< mean pairwise share of samples where members' labels differ
};

/// Accuracy of an ensemble of k members, for k = 1..N, over every k-member subset (or a
/// seeded sample of them where there are too many): the mean, and the worst and best
/// subset. Index k-1.
struct EnsembleSizeCurve {
  std::vector<double> mean, min, max;
};

/// A reliability diagram's data: the test images grouped by confidence (their top
/// probability) into equal-width bins, bin b holding (b/B, (b+1)/B]. ECE is the
/// count-weighted mean gap |accuracy - confidence| over the bins.
struct Reliability {
  std::vector<int64_t> count;      ///< images in each bin
  std::vector<double> confidence;  ///< their mean confidence (0 in an empty bin)
  std::vector<double> accuracy;    ///< the share of them predicted right (0 in an empty bin)
};

struct EvaluationResult {
  std::vector<TestScore> members;
  std::vector<Reliability> memberReliability;  ///< one per member (empty for older runs)
  Reliability ensembleReliability;
  /// Each score averaged over the members: what a typical single member achieves.
  TestScore meanMember;
  EnsembleScore ensemble;
  EnsembleSizeCurve accuracyVsSize;
  int64_t samples = 0;
  /// The scored test set's Dataset::contentDigest; empty where unknown (older runs, a shifted set).
  std::string testSetDigest;
};

}  // namespace ensemble
