// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs our CUDA kernels' source on the CPU, so that the tests check their index arithmetic,
// bounds, block reductions and launch geometry on machines without a GPU (CI has none).
// Include this before a kernel's .cuh: it defines CUDA's qualifiers away, and threadIdx,
// blockIdx, blockDim, gridDim and __syncthreads() for `launch`, which runs a grid one block
// at a time, each block's threads as real threads meeting at a barrier (so __shared__ can
// be a plain static: one block uses it at a time). Float arithmetic is the same as on a GPU
// where a kernel spells it out (fmaf is fused on both); the GPU itself is checked by
// ensemble-lab-kernel-check in scripts/gpu-check.sh.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

namespace cuda_on_cpu {

/// All of a block's threads wait here until the last one arrives (a reusable barrier). The
/// waiting threads yield rather than sleep on a condition variable: with a block's 256
/// threads on a few cores, waking them all through one mutex cost ten times the kernels' work.
class BlockBarrier {
 public:
  explicit BlockBarrier(std::size_t threads) : m_threads(threads) {}
  void arriveAndWait() {
    const std::size_t generation = m_generation.load(std::memory_order_acquire);
    if (m_arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == m_threads) {
      m_arrived.store(0, std::memory_order_relaxed);
      m_generation.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    while (m_generation.load(std::memory_order_acquire) == generation) std::this_thread::yield();
  }

 private:
  const std::size_t m_threads;
  std::atomic<std::size_t> m_arrived{0}, m_generation{0};
};

inline thread_local BlockBarrier* currentBarrier = nullptr;

/// kernel<<<grid, block>>>(args...), run to the end before it returns.
template <typename... Parameters, typename... Arguments>
void launch(void (*kernel)(Parameters...), dim3 grid, dim3 block, Arguments... arguments) {
  gridDim = grid;
  blockDim = block;
  const unsigned threadsPerBlock = block.x * block.y * block.z;
  BlockBarrier barrier(threadsPerBlock);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < threadsPerBlock; ++t) {
    threads.emplace_back([&, t] {
      threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
      currentBarrier = &barrier;
      for (unsigned z = 0; z < grid.z; ++z) {
        for (unsigned y = 0; y < grid.y; ++y) {
          for (unsigned x = 0; x < grid.x; ++x) {
            blockIdx = dim3(x, y, z);
            kernel(arguments...);
            barrier.arriveAndWait();  // the block ends before the next one uses __shared__
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
}

}  // namespace cuda_on_cpu

inline void __syncthreads() { cuda_on_cpu::currentBarrier->arriveAndWait(); }
