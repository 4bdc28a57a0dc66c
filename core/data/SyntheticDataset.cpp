// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/SyntheticDataset.h"

#include <torch/torch.h>

#include <vector>

#include "core/common/SeedSequence.h"

namespace ensemble {
namespace {

constexpr std::uint64_t kSyntheticSeed = 20261122;
constexpr int kClasses = int(kSyntheticClasses);

/// Sequential SplitMix64 values, so generation needs no library generator.
class Stream {
 public:
  explicit Stream(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t next() { return splitMix64(m_state++); }
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t m_state;
};

Dataset generateSplit(const std::vector<std::vector<double>>& templates, int64_t count,
                      int64_t side, Stream& stream) {
  const int64_t pixels = side * side;
  std::vector<std::uint8_t> images(static_cast<std::size_t>(count * pixels));
  std::vector<std::uint8_t> labels(static_cast<std::size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int label = int(stream.next() % kClasses);
    labels[i] = std::uint8_t(label);
    for (int64_t p = 0; p < pixels; ++p) {
      // Template plus uniform noise of comparable size: a single pixel says little, the
      // whole pattern says a lot.
      const double value = 0.5 * templates[label][p] + 0.5 * stream.uniform();
      images[i * pixels + p] = std::uint8_t(std::min(255.0, value * 255.0));
    }
  }
  Dataset split;
  split.classes = kClasses;
  split.origin = "synthetic";
  split.images = torch::from_blob(images.data(), {count, 1, side, side}, torch::kUInt8).clone();
  split.labels = torch::from_blob(labels.data(), {count}, torch::kUInt8).to(torch::kInt64);
  return split;
}

}  // namespace

DatasetPair makeSyntheticDataset(const SyntheticOptions& options) {
  Stream stream(kSyntheticSeed);
  std::vector<std::vector<double>> templates(kClasses);
  for (auto& pattern : templates) {
    pattern.resize(std::size_t(options.side * options.side));
    for (double& v : pattern) v = stream.uniform() < 0.5 ? 0.0 : 1.0;
  }
  DatasetPair pair;
  pair.name = "synthetic";
  pair.train = generateSplit(templates, options.trainSize, options.side, stream);
  pair.test = generateSplit(templates, options.testSize, options.side, stream);
  return pair;
}

}  // namespace ensemble
