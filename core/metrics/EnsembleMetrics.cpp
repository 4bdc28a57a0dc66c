// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/EnsembleMetrics.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace ensemble {

double accuracy(const torch::Tensor& probs, const torch::Tensor& labels) {
  return probs.argmax(1).eq(labels).to(torch::kFloat64).mean().item<double>();
}

double negativeLogLikelihood(const torch::Tensor& probs, const torch::Tensor& labels) {
  const torch::Tensor trueClass = probs.gather(1, labels.unsqueeze(1)).squeeze(1);
  return -trueClass.to(torch::kFloat64).clamp_min(1e-12).log().mean().item<double>();
}

double brierScore(const torch::Tensor& probs, const torch::Tensor& labels) {
  const torch::Tensor onehot = torch::one_hot(labels, probs.size(1)).to(torch::kFloat64);
  return (probs.to(torch::kFloat64) - onehot).pow(2).sum(1).mean().item<double>();
}

double expectedCalibrationError(const torch::Tensor& probs, const torch::Tensor& labels,
                                int bins) {
  const auto [confidence, predicted] = probs.to(torch::kFloat64).max(1);
  const torch::Tensor correct = predicted.eq(labels).to(torch::kFloat64);
  // Bin b holds confidences in (b/bins, (b+1)/bins]; a confidence of exactly 0 joins bin 0.
  const torch::Tensor bin =
      (confidence * bins).ceil().sub(1).clamp(0, bins - 1).to(torch::kInt64);
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(probs.device());
  const torch::Tensor count = torch::zeros({bins}, options).index_add_(0, bin, torch::ones_like(confidence));
  const torch::Tensor confidenceSum = torch::zeros({bins}, options).index_add_(0, bin, confidence);
  const torch::Tensor correctSum = torch::zeros({bins}, options).index_add_(0, bin, correct);
  return (confidenceSum - correctSum).abs().sum().item<double>() / double(probs.size(0));
}

Reliability reliabilityOf(const torch::Tensor& probs, const torch::Tensor& labels, int bins) {
  const auto [confidence, predicted] = probs.to(torch::kFloat64).cpu().max(1);
  const torch::Tensor correct = predicted.eq(labels.cpu()).to(torch::kFloat64);
  const torch::Tensor bin = (confidence * bins).ceil().sub(1).clamp(0, bins - 1).to(torch::kInt64);  // as the ECE's
  const auto options = torch::TensorOptions().dtype(torch::kFloat64);
  const torch::Tensor count = torch::zeros({bins}, options).index_add_(0, bin, torch::ones_like(confidence));
  const torch::Tensor confidenceSum = torch::zeros({bins}, options).index_add_(0, bin, confidence);
  const torch::Tensor correctSum = torch::zeros({bins}, options).index_add_(0, bin, correct);
  Reliability reliability;
  for (int b = 0; b < bins; ++b) {
    const double n = count[b].item<double>();
    reliability.count.push_back(int64_t(n));
    reliability.confidence.push_back(n > 0 ? confidenceSum[b].item<double>() / n : 0.0);
    reliability.accuracy.push_back(n > 0 ? correctSum[b].item<double>() / n : 0.0);
  }
  return reliability;
}

double meanPairwiseDisagreement(const std::vector<torch::Tensor>& memberProbs) {
  if (memberProbs.size() < 2) return 0.0;
  std::vector<torch::Tensor> predicted;
  for (const auto& p : memberProbs) predicted.push_back(p.argmax(1));
  double sum = 0;
  int pairs = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    for (std::size_t j = i + 1; j < predicted.size(); ++j) {
      sum += predicted[i].ne(predicted[j]).to(torch::kFloat64).mean().item<double>();
      ++pairs;
    }
  }
  return sum / pairs;
}

namespace {

/// The k-member subsets scored for the curve, as member indices: all C(n, k) of them, or
/// kMaxSubsetsPerSize distinct ones drawn with `random` where there are more.
std::vector<std::vector<std::size_t>> subsetsOfSize(std::size_t n, std::size_t k, std::mt19937_64& random) {
  double count = 1;  // C(n, k), in floating point: it only has to be compared with the cap
  for (std::size_t i = 0; i < k; ++i) count = count * double(n - i) / double(i + 1);
  std::vector<std::vector<std::size_t>> subsets;
  if (count <= kMaxSubsetsPerSize) {
    std::vector<bool> chosen(n, false);
    std::fill(chosen.begin(), chosen.begin() + std::ptrdiff_t(k), true);
    do {  // every arrangement of k "chosen" flags, in lexicographic order
      std::vector<std::size_t> subset;
      for (std::size_t i = 0; i < n; ++i) {
        if (chosen[i]) subset.push_back(i);
      }
      subsets.push_back(subset);
    } while (std::prev_permutation(chosen.begin(), chosen.end()));
    return subsets;
  }
  std::set<std::vector<std::size_t>> drawn;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  while (drawn.size() < std::size_t(kMaxSubsetsPerSize)) {
    std::shuffle(order.begin(), order.end(), random);
    std::vector<std::size_t> subset(order.begin(), order.begin() + std::ptrdiff_t(k));
    std::sort(subset.begin(), subset.end());
    drawn.insert(subset);
  }
  return {drawn.begin(), drawn.end()};
}

}  // namespace

EnsembleSizeCurve accuracyVsEnsembleSize(const std::vector<torch::Tensor>& memberProbs,
                                         const torch::Tensor& labels, std::uint64_t seed) {
  EnsembleSizeCurve curve;
  std::mt19937_64 random(seed);
  for (std::size_t k = 1; k <= memberProbs.size(); ++k) {
    double sum = 0, lowest = 1, highest = 0;
    const auto subsets = subsetsOfSize(memberProbs.size(), k, random);
    for (const auto& subset : subsets) {
      torch::Tensor total = torch::zeros_like(memberProbs.front(), torch::kFloat64);
      for (const std::size_t m : subset) total.add_(memberProbs[m].to(torch::kFloat64));
      const double score = accuracy(total, labels);  // the argmax of a sum is the mean's
      sum += score;
      lowest = std::min(lowest, score);
      highest = std::max(highest, score);
    }
    curve.mean.push_back(sum / double(subsets.size()));
    curve.min.push_back(lowest);
    curve.max.push_back(highest);
  }
  return curve;
}

torch::Tensor meanProbabilities(const std::vector<torch::Tensor>& memberProbs) {
  torch::Tensor sum = torch::zeros_like(memberProbs.front(), torch::kFloat64);
  for (const torch::Tensor& p : memberProbs) sum.add_(p.to(torch::kFloat64));
  return sum / double(memberProbs.size());
}

TestScore scoreTest(const torch::Tensor& probs, const torch::Tensor& labels) {
  return {negativeLogLikelihood(probs, labels), accuracy(probs, labels), brierScore(probs, labels),
          expectedCalibrationError(probs, labels)};
}

TestScore meanOf(const std::vector<TestScore>& members) {
  TestScore mean;
  for (const TestScore& m : members) {
    const double share = 1.0 / double(members.size());
    mean.loss += m.loss * share;
    mean.accuracy += m.accuracy * share;
    mean.brier += m.brier * share;
    mean.ece += m.ece * share;
  }
  return mean;
}

EnsembleScore scoreEnsemble(const torch::Tensor& ensembleProbs,
                            const std::vector<torch::Tensor>& memberProbs,
                            const torch::Tensor& labels) {
  EnsembleScore score;
  score.accuracy = accuracy(ensembleProbs, labels);
  score.nll = negativeLogLikelihood(ensembleProbs, labels);
  score.brier = brierScore(ensembleProbs, labels);
  score.ece = expectedCalibrationError(ensembleProbs, labels);
  score.disagreement = meanPairwiseDisagreement(memberProbs);
  return score;
}

}  // namespace ensemble
