// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Scores of probabilistic predictions. `probs` are [N, K] rows summing to 1, `labels` [N]
// int64, on the same device.
#include <torch/types.h>

#include <limits>
#include <vector>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

double accuracy(const torch::Tensor& probs, const torch::Tensor& labels);
/// The floor of a true class's probability in an NLL: the smallest positive float32 (a loss
/// of 103.28 per image). Probabilities are float32 softmax outputs, so this changes only
/// one that underflowed to 0 (a true loss of 103 or more), which would make the mean
/// infinite; every loss below that is exact. (It was 1e-12, which capped each image's loss
/// at 27.63 and made a confidently wrong model, or a shifted test set, look better than it was.)
inline constexpr double kSmallestProbability = std::numeric_limits<float>::denorm_min();
/// Mean negative log-likelihood of the true class (probabilities floored at kSmallestProbability).
double negativeLogLikelihood(const torch::Tensor& probs, const torch::Tensor& labels);
/// Mean over samples of the squared distance to the one-hot label (0 to 2).
double brierScore(const torch::Tensor& probs, const torch::Tensor& labels);
/// The ECE's and the reliability diagram's number of equal-width confidence bins.
constexpr int kReliabilityBins = 15;
/// The bin of each confidence: bin b holds (b/bins, (b+1)/bins], a confidence of 0 bin 0.
torch::Tensor confidenceBins(const torch::Tensor& confidence, int bins);
/// Expected calibration error with `bins` equal-width confidence bins.
double expectedCalibrationError(const torch::Tensor& probs, const torch::Tensor& labels,
                                int bins = kReliabilityBins);
/// The confidence bins of a reliability diagram (the same bins as the ECE's).
Reliability reliabilityOf(const torch::Tensor& probs, const torch::Tensor& labels, int bins = kReliabilityBins);
/// Mean over member pairs of the share of samples whose predicted classes differ (0 for
/// fewer than two members).
double meanPairwiseDisagreement(const std::vector<torch::Tensor>& memberProbs);
/// Subsets of one size scored for the ensemble-size curve: all of them up to this many,
/// a seeded sample of this many beyond (C(16, 8) = 12,870 would take minutes).
constexpr int kMaxSubsetsPerSize = 100;

/// The subsets the ensemble-size curve scores, size by size from 1 to `members`: each a list of
/// member indices in increasing order, all C(members, k) of a size or kMaxSubsetsPerSize
/// distinct ones drawn with `seed`; size k's end where sizeEnds[k - 1] says.
struct SubsetSample {
  std::vector<std::vector<std::size_t>> subsets;
  std::vector<std::size_t> sizeEnds;
};
SubsetSample ensembleSizeSubsets(std::size_t members, std::uint64_t seed);

/// The curve from the accuracy of each subset of `sample` (in its order): per size the mean,
/// summed in that order, the min and the max.
EnsembleSizeCurve curveOf(const std::vector<double>& accuracies, const SubsetSample& sample);

/// Accuracy of the mean of k members' probabilities, for k = 1..N, over every k-member
/// subset (or kMaxSubsetsPerSize distinct ones drawn with `seed`): mean, min and max.
EnsembleSizeCurve accuracyVsEnsembleSize(const std::vector<torch::Tensor>& memberProbs,
                                         const torch::Tensor& labels, std::uint64_t seed);

/// The mean of the members' probabilities (the ensemble's prediction), float64.
torch::Tensor meanProbabilities(const std::vector<torch::Tensor>& memberProbs);

/// Accuracy, NLL, Brier and ECE of one prediction.
TestScore scoreTest(const torch::Tensor& probs, const torch::Tensor& labels);
/// Each score averaged over `members`.
TestScore meanOf(const std::vector<TestScore>& members);
EnsembleScore scoreEnsemble(const torch::Tensor& ensembleProbs,
                            const std::vector<torch::Tensor>& memberProbs,
                            const torch::Tensor& labels);

}  // namespace ensemble
