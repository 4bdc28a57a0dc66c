// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/OodMetrics.h"

#include <torch/torch.h>

#include <stdexcept>

#include "core/metrics/EnsembleMetrics.h"

namespace ensemble {
namespace {

/// 1 - the highest class probability: high where the model is unsure.
torch::Tensor lackOfConfidence(const torch::Tensor& probs) {
  return 1.0 - std::get<0>(probs.to(torch::kFloat64).max(1));
}

OodAuroc aurocsOf(const torch::Tensor& inProbs, const torch::Tensor& outProbs) {
  OodAuroc result;
  result.maxProbability = auroc(lackOfConfidence(inProbs), lackOfConfidence(outProbs));
  result.entropy = auroc(predictiveEntropy(inProbs), predictiveEntropy(outProbs));
  return result;
}

}  // namespace

torch::Tensor predictiveEntropy(const torch::Tensor& probs) {
  const torch::Tensor p = probs.to(torch::kFloat64);
  // 0 log 0 = 0: the log of a zero probability never reaches the sum.
  return -(p * p.clamp_min(1e-300).log()).sum(1);
}

torch::Tensor mutualInformation(const std::vector<torch::Tensor>& memberProbs) {
  torch::Tensor meanEntropy = torch::zeros({memberProbs.front().size(0)}, torch::kFloat64);
  for (const torch::Tensor& p : memberProbs) meanEntropy.add_(predictiveEntropy(p));
  meanEntropy.div_(double(memberProbs.size()));
  // Entropy is concave, so this is >= 0 up to rounding; clamp the rounding away.
  return (predictiveEntropy(meanProbabilities(memberProbs)) - meanEntropy).clamp_min(0.0);
}

double auroc(const torch::Tensor& negative, const torch::Tensor& positive) {
  const int64_t n = negative.size(0), p = positive.size(0);
  if (n == 0 || p == 0) throw std::invalid_argument("AUROC needs samples in both sets");
  // Average ranks over the pooled scores (tied scores share the mean of their ranks); the
  // positives' rank sum minus its least possible value counts the pairs they win.
  const torch::Tensor pooled = torch::cat({negative.to(torch::kFloat64).flatten(), positive.to(torch::kFloat64).flatten()}).cpu();
  const auto [sorted, order] = pooled.sort();
  const auto values = sorted.accessor<double, 1>();
  const auto index = order.accessor<int64_t, 1>();
  double positiveRankSum = 0;
  for (int64_t start = 0; start < n + p;) {
    int64_t end = start + 1;
    while (end < n + p && values[end] == values[start]) ++end;
    const double rank = 0.5 * double(start + 1 + end);  // mean of ranks start+1 .. end
    for (int64_t i = start; i < end; ++i) {
      if (index[i] >= n) positiveRankSum += rank;
    }
    start = end;
  }
  const double wins = positiveRankSum - double(p) * double(p + 1) / 2;
  return wins / (double(n) * double(p));
}

OodResult scoreOutOfDistribution(const std::vector<torch::Tensor>& inOnDevices,
                                 const std::vector<torch::Tensor>& outOnDevices) {
  // Scored on the host, whatever device predicted them: the AUROCs rank there, and the
  // mutual information's sums start from host tensors.
  const auto onHost = [](const std::vector<torch::Tensor>& probs) {
    std::vector<torch::Tensor> host;
    for (const torch::Tensor& p : probs) host.push_back(p.cpu());
    return host;
  };
  const std::vector<torch::Tensor> in = onHost(inOnDevices), out = onHost(outOnDevices);
  OodResult result;
  result.inSamples = in.front().size(0);
  result.outSamples = out.front().size(0);
  for (std::size_t m = 0; m < in.size(); ++m) result.members.push_back(aurocsOf(in[m], out[m]));
  result.ensemble = aurocsOf(meanProbabilities(in), meanProbabilities(out));
  result.ensemble.mutualInformation = auroc(mutualInformation(in), mutualInformation(out));
  const auto toVector = [](const torch::Tensor& values) {
    const torch::Tensor flat = values.to(torch::kCPU, torch::kFloat64).contiguous();
    return std::vector<double>(flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel());
  };
  result.ensembleEntropyIn = toVector(predictiveEntropy(meanProbabilities(in)));
  result.ensembleEntropyOut = toVector(predictiveEntropy(meanProbabilities(out)));
  return result;
}

}  // namespace ensemble
