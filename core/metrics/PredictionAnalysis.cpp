// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/metrics/PredictionAnalysis.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ensemble {
namespace {

int argmax(const float* probs, int64_t classes) { return int(std::max_element(probs, probs + classes) - probs); }

double entropyOf(const float* probs, int64_t classes) {
  double entropy = 0;
  for (int64_t k = 0; k < classes; ++k) {
    if (probs[k] > 0) entropy -= double(probs[k]) * std::log(double(probs[k]));  // 0 log 0 = 0
  }
  return entropy;
}

/// Share of the N(N-1)/2 member pairs whose votes differ.
double pairwiseDisagreement(const std::vector<int>& votes) {
  const std::size_t n = votes.size();
  if (n < 2) return 0;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) differing += votes[i] != votes[j];
  }
  return double(differing) / double(n * (n - 1) / 2);
}

bool inCell(const ImageVerdict& verdict, const std::optional<ConfusionCell>& cell) {
  return !cell || (verdict.label == cell->label && verdict.ensembleVote == cell->predicted);
}

}  // namespace

std::vector<ImageVerdict> judgeImages(const Predictions& predictions) {
  const int64_t classes = predictions.classes;
  std::vector<ImageVerdict> verdicts(predictions.labels.size());
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    ImageVerdict& verdict = verdicts[i];
    verdict.label = predictions.labels[i];
    const float* ensemble = predictions.ensemble.data() + i * classes;
    verdict.ensembleVote = argmax(ensemble, classes);
    verdict.entropy = entropyOf(ensemble, classes);
    for (const std::vector<float>& member : predictions.members) {
      const int vote = argmax(member.data() + i * classes, classes);
      verdict.memberVotes.push_back(vote);
      verdict.membersWrong += vote != verdict.label;
    }
    verdict.disagreement = pairwiseDisagreement(verdict.memberVotes);
  }
  return verdicts;
}

std::vector<int64_t> confusionMatrix(const std::vector<ImageVerdict>& verdicts, int64_t classes) {
  std::vector<int64_t> counts(std::size_t(classes * classes), 0);
  for (const ImageVerdict& verdict : verdicts) {
    if (verdict.label >= 0 && verdict.label < classes) ++counts[std::size_t(verdict.label * classes + verdict.ensembleVote)];
  }
  return counts;
}

std::vector<int64_t> rankImages(const std::vector<ImageVerdict>& verdicts, GalleryOrder order,
                                const std::optional<ConfusionCell>& cell) {
  const auto majorityWrong = [](const ImageVerdict& v) { return 2 * v.membersWrong > int(v.memberVotes.size()); };
  const auto majorityRight = [](const ImageVerdict& v) {
    return 2 * (int(v.memberVotes.size()) - v.membersWrong) > int(v.memberVotes.size());
  };
  std::vector<int64_t> ranked;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const ImageVerdict& v = verdicts[i];
    if (!inCell(v, cell)) continue;
    const bool ensembleRight = v.ensembleVote == v.label;
    bool keep = true;
    switch (order) {
      case GalleryOrder::Disagreement: keep = v.disagreement > 0; break;
      case GalleryOrder::Entropy: break;
      case GalleryOrder::EnsembleRightMostMembersWrong: keep = ensembleRight && majorityWrong(v); break;
      case GalleryOrder::EnsembleWrongMostMembersRight: keep = !ensembleRight && majorityRight(v); break;
    }
    if (keep) ranked.push_back(int64_t(i));
  }
  // Most striking first: the most disagreed-on (then most uncertain), or the most uncertain,
  // or the widest margin between the ensemble and its members.
  const auto key = [&](int64_t i) -> std::pair<double, double> {
    const ImageVerdict& v = verdicts[std::size_t(i)];
    switch (order) {
      case GalleryOrder::Disagreement: return {v.disagreement, v.entropy};
      case GalleryOrder::Entropy: return {v.entropy, 0};
      case GalleryOrder::EnsembleRightMostMembersWrong: return {double(v.membersWrong), v.entropy};
      case GalleryOrder::EnsembleWrongMostMembersRight: return {double(v.memberVotes.size()) - v.membersWrong, v.entropy};
    }
    return {0, 0};
  };
  std::stable_sort(ranked.begin(), ranked.end(), [&](int64_t a, int64_t b) { return key(a) > key(b); });
  return ranked;
}

Histogram histogram(const std::vector<double>& values, int bins, double low, double high) {
  if (bins <= 0 || !(high > low)) throw std::invalid_argument("a histogram needs bins > 0 and high > low");
  Histogram result;
  result.low = low;
  result.binWidth = (high - low) / bins;
  result.counts.assign(std::size_t(bins), 0);
  for (const double value : values) {
    if (std::isnan(value)) continue;
    const int bin = std::clamp(int(std::floor((value - low) / result.binWidth)), 0, bins - 1);
    ++result.counts[std::size_t(bin)];
  }
  return result;
}

}  // namespace ensemble
