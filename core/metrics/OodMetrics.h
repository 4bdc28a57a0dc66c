// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Out-of-distribution scores: uncertainty measures of softmax probabilities ([N, K] rows
// summing to 1) and the AUROC that separates two sets by them.
#include <torch/types.h>

#include <vector>

#include "core/metrics/OodResult.h"

namespace ensemble {

/// Predictive entropy of each row, in nats: [N] float64.
torch::Tensor predictiveEntropy(const torch::Tensor& probs);

/// Mutual information between the prediction and the member (the ensemble's epistemic
/// uncertainty): entropy of the members' mean minus the mean of their entropies, per
/// sample, [N] float64. 0 where every member predicts alike.
torch::Tensor mutualInformation(const std::vector<torch::Tensor>& memberProbs);

/// Probability that a random `positive` score exceeds a random `negative` one, ties
/// counted half (the Mann-Whitney U statistic over the product of the counts). Throws
/// std::invalid_argument when either set is empty.
double auroc(const torch::Tensor& negative, const torch::Tensor& positive);

/// Every member's and the ensemble's AUROCs for telling `in` (each member's probabilities
/// on the run's test set) from `out` (on the out-of-distribution set); same members, in
/// the same order, on any device (they are scored on the host).
OodResult scoreOutOfDistribution(const std::vector<torch::Tensor>& in, const std::vector<torch::Tensor>& out);

}  // namespace ensemble
