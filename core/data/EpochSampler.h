// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order in which an epoch visits the training set: a permutation seeded by the run
// seed and the epoch number, cut into equal batches with the remainder dropped, as the Flax
// recipe's steps_per_epoch does (d2l's DataLoader keeps a last, smaller batch: drop_last is
// False there; every batch here has one size, which a captured CUDA graph needs). Each
// epoch's permutation is new, so the images left out change from epoch to epoch.
// Stateless: epoch e's order is a pure function of (seed, e), so a resumed run needs only
// the epoch and step to continue exactly. Torch-free.
#include <cstdint>
#include <vector>

namespace ensemble {

class EpochSampler final {
 public:
  /// `batchSize` must be in [1, datasetSize].
  EpochSampler(std::uint64_t runSeed, int64_t datasetSize, int64_t batchSize);

  int64_t stepsPerEpoch() const { return m_datasetSize / m_batchSize; }
  int64_t batchSize() const { return m_batchSize; }

  /// The full permutation of [0, datasetSize) for `epoch` (0-based).
  std::vector<int64_t> permutation(int64_t epoch) const;

 private:
  std::uint64_t m_runSeed;
  int64_t m_datasetSize;
  int64_t m_batchSize;
};

}  // namespace ensemble
