// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Deterministic seed derivation. Member seeds and per-epoch sampler seeds are split off
// the run seed with SplitMix64, so they are the same on every platform and LibTorch
// version (unlike a library generator whose algorithm may change).
#include <cstdint>

namespace ensemble {

/// One SplitMix64 step: a well-mixed 64-bit value from any 64-bit input.
inline std::uint64_t splitMix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Distinct purposes get distinct streams, so a member seed never equals a sampler seed.
enum class SeedStream : std::uint64_t { Member = 1, Sampler = 2, Synthetic = 3, Shift = 4 };

/// The seed for item `index` of `stream`, derived from the run seed.
inline std::uint64_t deriveSeed(std::uint64_t runSeed, SeedStream stream, std::uint64_t index) {
  return splitMix64(splitMix64(runSeed ^ (static_cast<std::uint64_t>(stream) << 56)) + index);
}

/// The same seed folded to the 63 bits torch::manual_seed accepts without surprise.
inline std::uint64_t torchSeed(std::uint64_t seed) { return seed >> 1; }

}  // namespace ensemble
