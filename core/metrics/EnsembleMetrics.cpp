// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/EnsembleMetrics.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>
#include <set>

namespace ensemble {

namespace {

/// Whether `row`'s argmax is `label`: the first largest value, where a NaN counts as largest
/// (LibTorch's argmax). Asked directly rather than by finding the argmax: the label's value
/// must beat every value before it and at least equal every value after it, a chain of
/// independent comparisons with no data-dependent branch.
template <typename T>
inline bool argmaxIs(const T* row, int64_t classes, int64_t label) {
  if (label < 0 || label >= classes) return false;
  const T at = row[label];
  if (std::isnan(at)) {  // the first NaN wins
    bool firstNan = true;
    for (int64_t c = 0; c < label; ++c) firstNan &= !std::isnan(row[c]);
    return firstNan;
  }
  bool wins = true;  // a NaN elsewhere fails both comparisons, and wins instead
  for (int64_t c = 0; c < classes; ++c) wins &= c < label ? row[c] < at : row[c] <= at;
  return wins;
}

/// argmax(1) of [rows, classes] probabilities: the first largest value, a NaN counting as
/// largest. On the host a plain loop, elsewhere LibTorch's.
torch::Tensor predictedClasses(const torch::Tensor& probs) {
  const bool plain = probs.is_cpu() && probs.dim() == 2 && probs.size(1) > 0 &&
                     (probs.scalar_type() == torch::kFloat32 || probs.scalar_type() == torch::kFloat64);
  if (!plain) return probs.argmax(1);
  const torch::Tensor rows = probs.contiguous();
  const int64_t count = rows.size(0), classes = rows.size(1);
  torch::Tensor predicted = torch::empty({count}, torch::kInt64);
  int64_t* out = predicted.data_ptr<int64_t>();
  const auto scan = [&](const auto* values) {
    for (int64_t i = 0; i < count; ++i) {
      const auto* row = values + i * classes;
      int64_t best = 0;
      for (int64_t c = 1; c < classes && !std::isnan(row[best]); ++c) {
        if (std::isnan(row[c]) || row[c] > row[best]) best = c;
      }
      out[i] = best;
    }
  };
  if (rows.scalar_type() == torch::kFloat64) {
    scan(rows.data_ptr<double>());
  } else {
    scan(rows.data_ptr<float>());
  }
  return predicted;
}

/// Rows of `classes` values whose argmax is the row's label.
template <typename T>
int64_t rowsArgmaxAtLabel(const T* rows, const int64_t* labels, int64_t count, int64_t classes) {
  int64_t hits = 0;
  for (int64_t i = 0; i < count; ++i) hits += argmaxIs(rows + i * classes, classes, labels[i]);
  return hits;
}

}  // namespace

double accuracy(const torch::Tensor& probs, const torch::Tensor& labels) {
  // predictedClasses: on the host a plain loop (LibTorch's argmax is slow on rows of ten,
  // and every member's and the ensemble's scores ask for it: bench/MetricsBench.cpp).
  return predictedClasses(probs).eq(labels).to(torch::kFloat64).mean().item<double>();
}

double negativeLogLikelihood(const torch::Tensor& probs, const torch::Tensor& labels) {
  const torch::Tensor trueClass = probs.gather(1, labels.unsqueeze(1)).squeeze(1);
  // 0 - x, not -x: a certain right answer, log(1) = 0, is a loss of 0, not -0 ("nll -0.0000").
  return 0.0 - trueClass.to(torch::kFloat64).clamp_min(kSmallestProbability).log().mean().item<double>();
}

double brierScore(const torch::Tensor& probs, const torch::Tensor& labels) {
  const torch::Tensor onehot = torch::one_hot(labels, probs.size(1)).to(torch::kFloat64);
  return (probs.to(torch::kFloat64) - onehot).pow(2).sum(1).mean().item<double>();
}

torch::Tensor confidenceBins(const torch::Tensor& confidence, int bins) {
  return (confidence * double(bins)).ceil().sub(1).clamp(0, bins - 1).to(torch::kInt64);
}

double expectedCalibrationError(const torch::Tensor& probs, const torch::Tensor& labels,
                                int bins) {
  const auto [confidence, predicted] = probs.to(torch::kFloat64).max(1);
  // A NaN prediction has no calibration (its NLL and Brier score are NaN too); binned, its
  // index would be out of range.
  if (confidence.isnan().any().item<bool>()) return std::nan("");
  const torch::Tensor correct = predicted.eq(labels).to(torch::kFloat64);
  const torch::Tensor bin = confidenceBins(confidence, bins);
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(probs.device());
  const torch::Tensor count = torch::zeros({bins}, options).index_add_(0, bin, torch::ones_like(confidence));
  const torch::Tensor confidenceSum = torch::zeros({bins}, options).index_add_(0, bin, confidence);
  const torch::Tensor correctSum = torch::zeros({bins}, options).index_add_(0, bin, correct);
  return (confidenceSum - correctSum).abs().sum().item<double>() / double(probs.size(0));
}

Reliability reliabilityOf(const torch::Tensor& probs, const torch::Tensor& labels, int bins) {
  const auto [allConfidence, allPredicted] = probs.to(torch::kFloat64).cpu().max(1);
  // Rows with a NaN are in no bin (their confidence is no number).
  const torch::Tensor numbered = allConfidence.isnan().logical_not();
  const torch::Tensor confidence = allConfidence.masked_select(numbered);
  const torch::Tensor predicted = allPredicted.masked_select(numbered);
  const torch::Tensor correct = predicted.eq(labels.cpu().masked_select(numbered)).to(torch::kFloat64);
  const torch::Tensor bin = confidenceBins(confidence, bins);
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
  // Each member's predicted classes once, then the pairs compared: with LibTorch's argmax
  // (0.5 ms for 10,000 rows of ten on the host) this was most of the ensemble's scoring.
  std::vector<torch::Tensor> predicted;
  for (const auto& p : memberProbs) predicted.push_back(predictedClasses(p));
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

SubsetSample ensembleSizeSubsets(std::size_t members, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  SubsetSample sample;
  for (std::size_t k = 1; k <= members; ++k) {
    for (auto& subset : subsetsOfSize(members, k, random)) sample.subsets.push_back(std::move(subset));
    sample.sizeEnds.push_back(sample.subsets.size());
  }
  return sample;
}

EnsembleSizeCurve curveOf(const std::vector<double>& accuracies, const SubsetSample& sample) {
  EnsembleSizeCurve curve;
  std::size_t begin = 0;
  for (const std::size_t end : sample.sizeEnds) {
    double sum = 0, lowest = 1, highest = 0;
    for (std::size_t i = begin; i < end; ++i) {  // in the order drawn, as the sum always was
      sum += accuracies[i];
      lowest = std::min(lowest, accuracies[i]);
      highest = std::max(highest, accuracies[i]);
    }
    curve.mean.push_back(sum / double(end - begin));
    curve.min.push_back(lowest);
    curve.max.push_back(highest);
    begin = end;
  }
  return curve;
}

EnsembleSizeCurve accuracyVsEnsembleSize(const std::vector<torch::Tensor>& memberProbs,
                                         const torch::Tensor& labels, std::uint64_t seed) {
  const std::size_t members = memberProbs.size();
  const SubsetSample sample = ensembleSizeSubsets(members, seed);
  const std::vector<std::vector<std::size_t>>& subsets = sample.subsets;

  // Each subset's member list is in increasing order. Scored in lexicographic order of those
  // lists, a subset's sum is the sum of its longest common prefix with the one before (still
  // held) plus its other members: the same additions in the same order as summing it from
  // zero, so the same bits, and one addition per subset where all of a size are scored (255
  // for 8 members, against 1,024). And all of it a block of rows at a time, so the sums stay
  // in the cache. Evaluating 8 members on 10,000 images spent 200 ms of host time here
  // before: the bound on how fast a GPU's evaluation could be (bench/MetricsBench.cpp).
  std::vector<std::size_t> order(subsets.size());  // positions in `subsets`, lexicographically
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return subsets[a] < subsets[b]; });
  std::vector<std::size_t> shared(order.size(), 0);  // with the subset before, in that order
  for (std::size_t j = 1; j < order.size(); ++j) {
    const auto &before = subsets[order[j - 1]], &subset = subsets[order[j]];
    while (shared[j] + 1 < subset.size() && shared[j] < before.size() && before[shared[j]] == subset[shared[j]]) {
      ++shared[j];
    }
  }
  const torch::Tensor truth = labels.to(torch::kCPU, torch::kInt64).contiguous();
  std::vector<torch::Tensor> inDouble;
  for (const torch::Tensor& p : memberProbs) inDouble.push_back(p.to(torch::kCPU, torch::kFloat64).contiguous());
  const int64_t count = truth.size(0), classes = count == 0 ? 1 : inDouble.front().numel() / count;
  std::vector<int64_t> hits(order.size(), 0);
  std::mutex merging;
  constexpr int64_t kRowsPerBlock = 256;  // 8 members' sums of 256 x 10 doubles: 160 KB
  at::parallel_for(0, (count + kRowsPerBlock - 1) / kRowsPerBlock, 1, [&](int64_t firstBlock, int64_t lastBlock) {
    std::vector<int64_t> found(order.size(), 0);
    std::vector<double> sums(members * kRowsPerBlock * classes);  // [depth][row][class] of this block
    for (int64_t block = firstBlock; block < lastBlock; ++block) {
      const int64_t first = block * kRowsPerBlock, rows = std::min(kRowsPerBlock, count - first);
      const int64_t values = rows * classes;
      for (std::size_t j = 0; j < order.size(); ++j) {
        const std::vector<std::size_t>& subset = subsets[order[j]];
        for (std::size_t d = shared[j]; d < subset.size(); ++d) {
          const double* member = inDouble[subset[d]].data_ptr<double>() + first * classes;
          double* level = sums.data() + d * kRowsPerBlock * classes;
          if (d == 0) {
            std::copy(member, member + values, level);
          } else {
            const double* below = level - kRowsPerBlock * classes;
            for (int64_t v = 0; v < values; ++v) level[v] = below[v] + member[v];
          }
        }
        // The argmax of a sum is the mean's.
        found[j] += rowsArgmaxAtLabel(sums.data() + (subset.size() - 1) * kRowsPerBlock * classes,
                                      truth.data_ptr<int64_t>() + first, rows, classes);
      }
    }
    const std::lock_guard<std::mutex> lock(merging);  // counts: their sum is the same in any order
    for (std::size_t j = 0; j < order.size(); ++j) hits[j] += found[j];
  });
  std::vector<double> score(subsets.size());
  for (std::size_t j = 0; j < order.size(); ++j) {
    score[order[j]] = count == 0 ? std::nan("") : double(hits[j]) / double(count);
  }
  return curveOf(score, sample);
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
