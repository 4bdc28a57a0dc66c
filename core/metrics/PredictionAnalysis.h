// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a person looks at to understand an ensemble's mistakes, from every model's
// predictions (Predictions): each image's votes, how much the members disagree on it,
// the ensemble's confusion matrix, and the images ranked for a gallery. Torch-free.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/metrics/Predictions.h"

namespace ensemble {

/// One test image as the models see it.
struct ImageVerdict {
  int64_t label = 0;
  int ensembleVote = 0;          ///< argmax of the members' mean probabilities
  std::vector<int> memberVotes;  ///< each member's argmax
  int membersWrong = 0;          ///< members whose vote is not the label
  double disagreement = 0;       ///< share of member pairs that vote differently (0 with one member)
  double entropy = 0;            ///< the ensemble's predictive entropy, nats
};

/// Every image's verdict, in the order of `predictions`.
std::vector<ImageVerdict> judgeImages(const Predictions& predictions);

/// The ensemble's confusion matrix: counts[label * classes + predicted].
std::vector<int64_t> confusionMatrix(const std::vector<ImageVerdict>& verdicts, int64_t classes);

enum class GalleryOrder {
  Disagreement,                  ///< only images the members disagree on, most disagreed first
  Entropy,                       ///< every image, the ensemble's most uncertain first
  EnsembleRightMostMembersWrong, ///< the ensemble right while most members are wrong
  EnsembleWrongMostMembersRight, ///< the reverse: the averaging lost a majority's right answer
};

/// A confusion-matrix cell: images of class `label` the ensemble calls `predicted`.
struct ConfusionCell {
  int64_t label = 0;
  int64_t predicted = 0;
};

/// Indices into `verdicts`, for a gallery in `order`, restricted to `cell` when given.
/// Ties keep the images' own order, so the ranking is deterministic.
std::vector<int64_t> rankImages(const std::vector<ImageVerdict>& verdicts, GalleryOrder order,
                                const std::optional<ConfusionCell>& cell = std::nullopt);

/// Equal-width bins over [low, high]; values outside are clamped into the end bins.
struct Histogram {
  double low = 0;
  double binWidth = 1;
  std::vector<int64_t> counts;
};
Histogram histogram(const std::vector<double>& values, int bins, double low, double high);

}  // namespace ensemble
