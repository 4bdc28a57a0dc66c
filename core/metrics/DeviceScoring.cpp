// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/DeviceScoring.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "core/metrics/EnsembleMetrics.h"

namespace ensemble {
namespace {

/// Reads the one tensor that came back, part by part, in the order the parts were packed.
class Unpacker {
 public:
  explicit Unpacker(const torch::Tensor& packed) : m_values(packed.data_ptr<double>()) {}
  std::vector<double> next(int64_t count) {
    std::vector<double> values(m_values + m_offset, m_values + m_offset + count);
    m_offset += count;
    return values;
  }

 private:
  const double* m_values;
  int64_t m_offset = 0;
};

/// For each subset of `sample`: how many rows' argmax of the members' summed probabilities is
/// the label. `memberRows` [members, images * classes] float64. Each subset's sum is its first
/// member plus the next, and so on, in member order: the host's additions (accuracyVsEnsembleSize).
torch::Tensor subsetHits(const torch::Tensor& memberRows, const torch::Tensor& truth, int64_t classes,
                         const SubsetSample& sample, int64_t subsetSumBytes) {
  const int64_t images = truth.size(0);
  std::vector<int64_t> indices;  // every subset's members, subset after subset: one copy to the device
  for (const auto& subset : sample.subsets) indices.insert(indices.end(), subset.begin(), subset.end());
  const torch::Tensor members = torch::tensor(indices, torch::kInt64).to(memberRows.device());
  const int64_t perChunk = std::max<int64_t>(1, subsetSumBytes / std::max<int64_t>(1, memberRows.size(1) * 8));
  std::vector<torch::Tensor> hits;
  std::size_t begin = 0;
  int64_t offset = 0;  // of size k's first subset's first member in `members`
  for (std::size_t k = 1; k <= sample.sizeEnds.size(); ++k) {
    const std::size_t end = sample.sizeEnds[k - 1];
    for (std::size_t first = begin; first < end; first += std::size_t(perChunk)) {
      const int64_t count = std::min<int64_t>(perChunk, int64_t(end - first));
      const torch::Tensor chosen = members.narrow(0, offset + int64_t(first - begin) * int64_t(k), count * int64_t(k))
                                       .view({count, int64_t(k)});
      torch::Tensor sums = memberRows.index_select(0, chosen.select(1, 0));
      for (int64_t d = 1; d < int64_t(k); ++d) sums.add_(memberRows.index_select(0, chosen.select(1, d)));
      hits.push_back(sums.view({count, images, classes}).argmax(2).eq(truth).sum(1));
    }
    offset += int64_t(end - begin) * int64_t(k);
    begin = end;
  }
  return torch::cat(hits);
}

}  // namespace

bool scoresOnDevice(const std::vector<torch::Tensor>& memberProbs) {
  if (memberProbs.empty() || !memberProbs.front().is_cuda()) return false;
  return std::all_of(memberProbs.begin(), memberProbs.end(),
                     [&](const torch::Tensor& p) { return p.device() == memberProbs.front().device(); });
}

EvaluationResult scoreOnDevice(const std::vector<torch::Tensor>& memberProbs, const torch::Tensor& ensembleProbs,
                               const torch::Tensor& labels, std::uint64_t seed, int64_t subsetSumBytes) {
  torch::NoGradGuard noGrad;
  const torch::Device device = ensembleProbs.device();
  const int64_t members = int64_t(memberProbs.size());
  const int64_t images = ensembleProbs.size(0), classes = ensembleProbs.size(1);
  const torch::Tensor truth = labels.to(device, torch::kInt64);

  // Every member and, last, the ensemble: [members + 1, images, classes], float64 as the host scores.
  std::vector<torch::Tensor> predictions(memberProbs.begin(), memberProbs.end());
  predictions.push_back(ensembleProbs);
  const torch::Tensor probs = torch::stack(predictions).to(torch::kFloat64);
  const int64_t scored = probs.size(0);

  // 0 - x, as the host: certainty scores 0, not -0.
  const torch::Tensor nll = torch::rsub(
      probs.gather(2, truth.view({1, images, 1}).expand({scored, images, 1})).squeeze(2).clamp_min(kSmallestProbability).log().mean(1),
      0.0);
  const torch::Tensor predicted = probs.argmax(2);  // the first largest, a NaN counting as largest
  const torch::Tensor accuracy = predicted.eq(truth).to(torch::kFloat64).mean(1);
  // The one-hot labels by comparison (one_hot scatters, which deterministic mode may refuse on a GPU).
  const torch::Tensor oneHot = truth.unsqueeze(1).eq(torch::arange(classes, truth.options())).to(torch::kFloat64);
  const torch::Tensor brier = (probs - oneHot).pow(2).sum(2).mean(1);
  // The reliability bins: (b/B, (b+1)/B], a confidence of 0 in bin 0; the ECE from them.
  // As on the host, a row with a NaN is in no bin, and makes its prediction's ECE NaN. (Its
  // confidence is zeroed first: a NaN converts to a different integer on a GPU than here.)
  const auto [rawConfidence, top] = probs.max(2);
  const torch::Tensor unnumbered = rawConfidence.isnan();
  const torch::Tensor confidence = rawConfidence.masked_fill(unnumbered, 0.0);
  const torch::Tensor correct = top.eq(truth).to(torch::kFloat64);
  const torch::Tensor bin = confidenceBins(confidence, kReliabilityBins);
  const torch::Tensor inBin = bin.unsqueeze(2)
                                  .eq(torch::arange(kReliabilityBins, truth.options()))
                                  .logical_and(unnumbered.logical_not().unsqueeze(2))
                                  .to(torch::kFloat64);  // [scored, images, bins]
  const torch::Tensor count = inBin.sum(1);
  const torch::Tensor confidenceSum = (inBin * confidence.unsqueeze(2)).sum(1);
  const torch::Tensor correctSum = (inBin * correct.unsqueeze(2)).sum(1);
  const torch::Tensor ece = ((confidenceSum - correctSum).abs().sum(1) / double(images))
                                .masked_fill(unnumbered.any(1), std::nan(""));
  // Rows on which two members' predicted classes differ, for every pair.
  const torch::Tensor memberPredicted = predicted.narrow(0, 0, members);
  const torch::Tensor differing = memberPredicted.unsqueeze(1).ne(memberPredicted.unsqueeze(0)).sum(2);

  const SubsetSample sample = ensembleSizeSubsets(std::size_t(members), seed);
  const torch::Tensor hits =
      subsetHits(probs.narrow(0, 0, members).reshape({members, images * classes}), truth, classes, sample, subsetSumBytes);

  // The pass's one read-back.
  const torch::Tensor packed = torch::cat({nll, accuracy, brier, ece, count.flatten(), confidenceSum.flatten(),
                                           correctSum.flatten(), differing.flatten().to(torch::kFloat64),
                                           hits.to(torch::kFloat64)})
                                   .to(torch::kCPU)
                                   .contiguous();
  Unpacker unpack(packed);
  const std::vector<double> nlls = unpack.next(scored), accuracies = unpack.next(scored), briers = unpack.next(scored),
                            eces = unpack.next(scored), counts = unpack.next(scored * kReliabilityBins),
                            confidences = unpack.next(scored * kReliabilityBins),
                            corrects = unpack.next(scored * kReliabilityBins),
                            differs = unpack.next(members * members), subsetHitCounts = unpack.next(int64_t(sample.subsets.size()));

  const auto reliabilityAt = [&](int64_t p) {
    Reliability reliability;
    for (int64_t b = p * kReliabilityBins; b < (p + 1) * kReliabilityBins; ++b) {
      const double n = counts[b];
      reliability.count.push_back(int64_t(n));
      reliability.confidence.push_back(n > 0 ? confidences[b] / n : 0.0);
      reliability.accuracy.push_back(n > 0 ? corrects[b] / n : 0.0);
    }
    return reliability;
  };
  EvaluationResult result;
  result.samples = images;
  for (int64_t m = 0; m < members; ++m) {
    result.members.push_back({nlls[m], accuracies[m], briers[m], eces[m]});
    result.memberReliability.push_back(reliabilityAt(m));
  }
  result.meanMember = meanOf(result.members);
  result.ensemble = {accuracies[members], nlls[members], briers[members], eces[members], 0.0};
  result.ensembleReliability = reliabilityAt(members);
  if (members > 1) {  // the pairs' shares in the host's order (meanPairwiseDisagreement)
    double sum = 0;
    int pairs = 0;
    for (int64_t i = 0; i < members; ++i) {
      for (int64_t j = i + 1; j < members; ++j, ++pairs) sum += differs[i * members + j] / double(images);
    }
    result.ensemble.disagreement = sum / pairs;
  }
  std::vector<double> subsetAccuracy;
  for (const double h : subsetHitCounts) subsetAccuracy.push_back(images == 0 ? std::nan("") : h / double(images));
  result.accuracyVsSize = curveOf(subsetAccuracy, sample);
  return result;
}

}  // namespace ensemble
