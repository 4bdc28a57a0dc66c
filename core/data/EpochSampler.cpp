// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/EpochSampler.h"

#include <numeric>
#include <string>

#include "core/common/Error.h"
#include "core/common/SeedSequence.h"

namespace ensemble {
namespace {

/// Unbiased integer in [0, bound) from a SplitMix64 stream (Lemire's method).
std::uint64_t boundedRandom(std::uint64_t& state, std::uint64_t bound) {
  while (true) {
    const unsigned __int128 product = (unsigned __int128)splitMix64(state++) * bound;
    const std::uint64_t low = std::uint64_t(product);
    if (low >= (-bound) % bound) return std::uint64_t(product >> 64);
  }
}

}  // namespace

EpochSampler::EpochSampler(std::uint64_t runSeed, int64_t datasetSize, int64_t batchSize)
    : m_runSeed(runSeed), m_datasetSize(datasetSize), m_batchSize(batchSize) {
  if (batchSize < 1 || batchSize > datasetSize) {
    throw ConfigError("batch size " + std::to_string(batchSize) + " must be between 1 and the " +
                      std::to_string(datasetSize) + " training samples");
  }
}

std::vector<int64_t> EpochSampler::permutation(int64_t epoch) const {
  std::vector<int64_t> order(static_cast<std::size_t>(m_datasetSize));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::uint64_t state = deriveSeed(m_runSeed, SeedStream::Sampler, std::uint64_t(epoch));
  // Fisher-Yates, back to front.
  for (std::size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1], order[boundedRandom(state, i)]);
  }
  return order;
}

}  // namespace ensemble
