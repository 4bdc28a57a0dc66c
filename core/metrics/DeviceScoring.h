// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An evaluation's scores computed where the probabilities are, and read back once.
//
// Scoring on the host first copies every member's probabilities off the GPU, then loops over
// them: 30-37 ms for 8 members on 10,000 images on one core (ensemble-lab-metrics-bench), where
// an H200 evaluated 8 stacked members, forward and scoring, in 50-74 ms (134,676-197,910
// images/s; issue 29, docs/BENCHMARKS.md). Here every member
// and the ensemble are scored at once with batched tensor ops on their device, and one small
// tensor of results comes back. The arithmetic is the host's (EnsembleMetrics.h): the same
// first-largest argmax with NaN as largest, the same bins, and each subset of the ensemble-
// size curve summed in float64 in the same member order, so its accuracies are the host's
// exactly; means over images are reduced in another order (agreeing to ~1e-15).
#include <torch/types.h>

#include <cstdint>
#include <vector>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

/// Whether scoreOnDevice is the faster way to score these: all on one GPU.
bool scoresOnDevice(const std::vector<torch::Tensor>& memberProbs);

/// What the host's scoring gives (every member's TestScore and Reliability, the ensemble's
/// EnsembleScore and Reliability, the mean member, the ensemble-size curve drawn with `seed`)
/// for members' probabilities [N, K] and `ensembleProbs`, their mean, all on one device
/// (any: the tests run it on the CPU). `labels` [N] may be anywhere. The size curve's subset
/// sums are formed a chunk of subsets at a time, each at most `subsetSumBytes` (float64 [N, K]
/// per subset; at least one subset).
EvaluationResult scoreOnDevice(const std::vector<torch::Tensor>& memberProbs, const torch::Tensor& ensembleProbs,
                               const torch::Tensor& labels, std::uint64_t seed,
                               int64_t subsetSumBytes = int64_t(256) << 20);

}  // namespace ensemble
