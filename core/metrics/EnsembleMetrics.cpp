#include "core/metrics/EnsembleMetrics.h"

#include <torch/torch.h>

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

std::vector<double> accuracyVsEnsembleSize(const std::vector<torch::Tensor>& memberProbs,
                                           const torch::Tensor& labels) {
  std::vector<double> curve;
  torch::Tensor sum = torch::zeros_like(memberProbs.front(), torch::kFloat64);
  for (std::size_t k = 0; k < memberProbs.size(); ++k) {
    sum.add_(memberProbs[k].to(torch::kFloat64));
    curve.push_back(accuracy(sum / double(k + 1), labels));
  }
  return curve;
}

ModelScore scoreModel(const torch::Tensor& probs, const torch::Tensor& labels) {
  return {negativeLogLikelihood(probs, labels), accuracy(probs, labels)};
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
