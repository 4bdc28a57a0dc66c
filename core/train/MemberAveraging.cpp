// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/MemberAveraging.h"

#include <torch/torch.h>

#include "core/comm/Communicator.h"
#include "core/metrics/EnsembleMetrics.h"
#include "core/train/TrainingStep.h"

namespace ensemble {

namespace {

/// The ensemble's score row from its mean probabilities [B, K].
torch::Tensor scoreOfMean(const torch::Tensor& mean, const torch::Tensor& labels) {
  const torch::Tensor trueClass = mean.gather(1, labels.unsqueeze(1)).squeeze(1);
  // floored: a member certain of a wrong class must not make the ensemble's loss infinite
  // (float64 first: bfloat16 probabilities would round the floor to 0)
  return scoreRow(-trueClass.to(torch::kFloat64).clamp_min(kSmallestProbability).log().mean(), mean.argmax(1).eq(labels).sum(),
                  labels.size(0));
}

}  // namespace

torch::Tensor averageMembersAndScore(Communicator& communicator, std::vector<torch::Tensor>& probabilities,
                                     const torch::Tensor& labels) {
  communicator.allReduceMean(probabilities);
  return scoreOfMean(probabilities.front(), labels);
}

torch::Tensor stackedMemberRows(const torch::Tensor& losses, const torch::Tensor& logits, const torch::Tensor& labels,
                                int64_t samples) {
  const auto f64 = losses.options().dtype(torch::kFloat64);
  const torch::Tensor hits = logits.argmax(2).eq(labels.unsqueeze(0)).sum(1);
  return torch::stack({losses.detach().to(torch::kFloat64), hits.to(torch::kFloat64),
                       torch::full({logits.size(0)}, double(samples), f64)},
                      1);
}

torch::Tensor stackedScoreRows(const torch::Tensor& losses, const torch::Tensor& logits, const torch::Tensor& labels,
                               int64_t samples) {
  const torch::Tensor memberRows = stackedMemberRows(losses, logits, labels, samples);
  if (logits.size(0) == 1) return memberRows;
  const torch::Tensor mean = torch::softmax(logits.detach(), 2).mean(0);
  return torch::cat({memberRows, scoreOfMean(mean, labels).unsqueeze(0)});
}

}  // namespace ensemble
