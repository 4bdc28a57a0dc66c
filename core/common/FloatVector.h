// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Eight floats (or sixteen) as one value, for the CPU loops built per instruction set
// (CpuClones.h): GCC's and Clang's vector extension, lowered to one AVX register where the
// clone has AVX and to two SSE registers in the baseline clone. Multiply a vector by a plain
// float for a broadcast: building one by hand (`FloatVector{} + x`) costs an add first (0 + x
// turns -0 into +0, so the compiler keeps it), measured at half the speed in a matrix product
// (docs/BENCHMARKS.md).
#include <cstdint>
#include <cstring>

#include "core/common/CpuClones.h"

namespace ensemble {

constexpr int64_t kFloatVectorWidth = 8;

typedef float FloatVector __attribute__((vector_size(kFloatVectorWidth * sizeof(float))));

/// Sixteen floats: one AVX-512 register, two AVX ones, four SSE ones (as the clone has). The
/// loops use it where the CPU has AVX-512 (panel_product::useWideRegisters, PanelWidth.h).
typedef float WideFloatVector __attribute__((vector_size(2 * kFloatVectorWidth * sizeof(float))));

/// How many floats a FloatVector or a WideFloatVector holds.
template <typename V>
constexpr int64_t kLanes = int64_t(sizeof(V) / sizeof(float));

/// Loads and stores for either vector, unaligned, always inlined (CpuClones.h).
template <typename V>
ENSEMBLELAB_ALWAYS_INLINE V loadLanes(const float* from) {
  V v;
  std::memcpy(&v, from, sizeof v);  // compiles to one load (or two, four)
  return v;
}

template <typename V>
ENSEMBLELAB_ALWAYS_INLINE void storeLanes(float* to, V v) {
  std::memcpy(to, &v, sizeof v);
}

}  // namespace ensemble
