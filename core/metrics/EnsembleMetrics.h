#pragma once
// Scores of probabilistic predictions. `probs` are [N, K] rows summing to 1, `labels` [N]
// int64, on the same device.
#include <torch/types.h>

#include <vector>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

double accuracy(const torch::Tensor& probs, const torch::Tensor& labels);
/// Mean negative log-likelihood of the true class (probabilities floored at 1e-12).
double negativeLogLikelihood(const torch::Tensor& probs, const torch::Tensor& labels);
/// Mean over samples of the squared distance to the one-hot label (0 to 2).
double brierScore(const torch::Tensor& probs, const torch::Tensor& labels);
/// Expected calibration error with `bins` equal-width confidence bins.
double expectedCalibrationError(const torch::Tensor& probs, const torch::Tensor& labels,
                                int bins = 15);
/// Mean over member pairs of the share of samples whose predicted classes differ (0 for
/// fewer than two members).
double meanPairwiseDisagreement(const std::vector<torch::Tensor>& memberProbs);
/// Accuracy of the mean of the first k members' probabilities, for k = 1..N.
std::vector<double> accuracyVsEnsembleSize(const std::vector<torch::Tensor>& memberProbs,
                                           const torch::Tensor& labels);

ModelScore scoreModel(const torch::Tensor& probs, const torch::Tensor& labels);
EnsembleScore scoreEnsemble(const torch::Tensor& ensembleProbs,
                            const std::vector<torch::Tensor>& memberProbs,
                            const torch::Tensor& labels);

}  // namespace ensemble
