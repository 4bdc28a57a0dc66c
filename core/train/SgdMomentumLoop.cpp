// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/SgdMomentumLoop.h"

#include "core/common/CpuClones.h"

// Built with -ffp-contract=off (core/CMakeLists.txt): GCC's ISO C++ default already is, but
// Clang's is not, and a contracted multiply-add would round differently on CPUs with FMA.

namespace ensemble::sgd_loop {

// AVX2 and the x86-64 baseline, chosen at load time: the loop is memory-bound, and AVX2's
// wider loads are what count (as for the fused pool's loops, ReluAvgPoolLoops.cpp).
ENSEMBLELAB_CPU_CLONES("avx2", "default")
void step(int64_t first, int64_t last, float* __restrict parameter, float* __restrict buffer,
          const float* __restrict grad, float momentum, float negativeLearningRate) {
  for (int64_t i = first; i < last; ++i) {
    const float velocity = momentum * buffer[i] + grad[i];
    buffer[i] = velocity;
    parameter[i] = parameter[i] + negativeLearningRate * velocity;
  }
}

ENSEMBLELAB_CPU_CLONES("avx2", "default")
void stepWithDecay(int64_t first, int64_t last, float* __restrict parameter, float* __restrict buffer,
                   const float* __restrict grad, float momentum, float negativeLearningRate, float weightDecay) {
  for (int64_t i = first; i < last; ++i) {
    const float decayed = grad[i] + weightDecay * parameter[i];
    const float velocity = momentum * buffer[i] + decayed;
    buffer[i] = velocity;
    parameter[i] = parameter[i] + negativeLearningRate * velocity;
  }
}

}  // namespace ensemble::sgd_loop
