// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the members' probabilities are averaged during training: the ensemble's
// prediction on a training batch is the mean of every member's softmax probabilities
// across the whole group (Flax's `pmean`, an all-reduce through the Communicator), and
// the ensemble's training loss and accuracy (the "ensemble" rows of metrics.csv and the
// bold live curve) are scored on that mean, never on one member's output.
// (Evaluation averages the same way: Evaluator.h, evaluateMembers.)
#include <torch/types.h>

#include <vector>

namespace ensemble {

class Communicator;

/// Replaces each of `probabilities` (this process's members' softmax outputs [B, K], each
/// on its member's device) with the mean over every member of the group, and returns the
/// ensemble's score row (mean negative log-likelihood of the true class under the mean,
/// its correct predictions, `labels.size(0)` samples) on the first member's device.
/// `labels` [B] is on that device. Every process of the group must call it (a collective).
torch::Tensor averageMembersAndScore(Communicator& communicator, std::vector<torch::Tensor>& probabilities,
                                     const torch::Tensor& labels);

/// The score rows [members, 3] of members trained stacked: scoreRow's for each, built at once.
/// `losses` [members] holds each member's mean loss, `logits` [members, B, K] their float
/// logits, `labels` [B].
torch::Tensor stackedMemberRows(const torch::Tensor& losses, const torch::Tensor& logits, const torch::Tensor& labels,
                                int64_t samples);

/// The score rows of members trained stacked in one process, then their ensemble's:
/// [members + 1, 3] ([1, 3] for one member, which has no ensemble row); arguments as
/// stackedMemberRows. The rows of scoreRow for each member and of averageMembersAndScore for their mean, in a
/// dozen kernels rather than about seven per member: on a GPU, where each of those is a
/// launch of a few microseconds, they were about a tenth of a 16-member bf16 step. The mean
/// is summed in another order than the communicator's, so the ensemble's row agrees with
/// it to float rounding; the members' rows are the same bits.
torch::Tensor stackedScoreRows(const torch::Tensor& losses, const torch::Tensor& logits, const torch::Tensor& labels,
                               int64_t samples);

}  // namespace ensemble
