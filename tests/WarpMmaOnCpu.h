// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// core/models/WarpMma.cuh's PTX on the CPU, for kernels run by tests/CudaOnCpu.h. Include it
// after CudaOnCpu.h and before the kernel's .cuh (which includes WarpMma.cuh for the rest).
//
// Unlike tests/WmmaOnCpu.h, whose fragments hide their layout, here every lane holds its own
// registers as the PTX ISA places them, so a kernel that loads a fragment's elements for the
// wrong lane computes the wrong product. The warp's lanes (real threads) meet at each mmaTf32
// (and once for mmaTf32Split's three products: the meetings are what the emulation costs):
// each leaves its registers in the warp's slot, and after the warp's barrier each computes its
// own four sums from the lanes holding the rows and columns it needs, in float, in the order of
// depth. Two slots, used in turn, so one barrier a call is enough: a lane writes a
// slot again only after the next call's barrier, which every lane reaches after its reads.
// Operands must be TF32 (13 low bits zero), as mma.sync reads them: a kernel that forgot to
// round aborts the test.
//
// Copies are done at once (cp.async with its wait is then a no-op): a kernel that reads a stage
// before waiting for it is not caught here; compute-sanitizer's racecheck on a GPU
// (scripts/gpu-check.sh, step 1e) looks at that.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace warp_mma {
namespace on_cpu {

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "WarpMmaOnCpu: %s (a GPU would compute garbage)\n", what);
  std::abort();
}

struct LaneOperands {
  std::uint32_t a[4], b[2], aSmall[4], bSmall[2];
};
struct WarpSlots {
  LaneOperands lanes[2][32];
};
struct WarpBarrier : cuda_on_cpu::BlockBarrier {
  WarpBarrier() : BlockBarrier(32) {}
};

constexpr int kMostWarps = 32;  // 1024 threads a block
inline WarpSlots warpSlots[kMostWarps];  // (not "slots": a Qt keyword)
inline WarpBarrier barriers[kMostWarps];
inline thread_local unsigned callsOfThisThread = 0;  // a launch's threads are new threads: 0 at its start

inline float floatOf(std::uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

inline bool isTf32(std::uint32_t bits) { return (bits & 0x1fffu) == 0 || floatOf(bits) != floatOf(bits); }

template <std::size_t N>
void checkTf32(const std::uint32_t (&registers)[N], const char* what) {
  for (const std::uint32_t bits : registers) {
    if (!isTf32(bits)) fail(what);
  }
}

/// This lane's operands left in its warp's slot, the warp met: every lane's operands.
inline const LaneOperands* meetWarp(const LaneOperands& mine) {
  const int lane = int(threadIdx.x % 32), warp = int(threadIdx.x / 32);
  if (warp >= kMostWarps) fail("more warps in a block than the emulation holds");
  LaneOperands* lanes = warpSlots[warp].lanes[callsOfThisThread++ & 1u];
  lanes[lane] = mine;
  barriers[warp].arriveAndWait();
  return lanes;
}

/// d[r] += A (a's registers) times B (b's registers) for this lane's four sums, in the order of
/// depth. A's (row, k) is lane (row % 8) * 4 + k % 4's register row / 8 + 2 (k / 4); B's
/// (k, column) is lane column * 4 + k % 4's register k / 4.
template <typename A, typename B>
void addProducts(float (&d)[4], const LaneOperands* lanes, A a, B b) {
  const int lane = int(threadIdx.x % 32), g = lane / 4, t = lane % 4;
  for (int r = 0; r < 4; ++r) {
    const int row = g + 8 * (r / 2), column = 2 * t + r % 2;
    float sum = d[r];
    for (int k = 0; k < 8; ++k) {
      sum += floatOf(a(lanes[(row % 8) * 4 + k % 4])[row / 8 + 2 * (k / 4)]) *
             floatOf(b(lanes[column * 4 + k % 4])[k / 4]);
    }
    d[r] = sum;
  }
}

}  // namespace on_cpu

inline void mmaTf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  using namespace on_cpu;
  checkTf32(a, "an A operand of mma.sync was not rounded to TF32");
  checkTf32(b, "a B operand of mma.sync was not rounded to TF32");
  LaneOperands mine{};
  std::memcpy(mine.a, a, sizeof a);
  std::memcpy(mine.b, b, sizeof b);
  const LaneOperands* lanes = meetWarp(mine);
  addProducts(d, lanes, [](const LaneOperands& o) { return o.a; }, [](const LaneOperands& o) { return o.b; });
}

/// WarpMma.cuh's three products at one meeting (a third of the threads' waiting), summed as
/// three mmaTf32 calls would sum them.
inline void mmaTf32Split(float (&d)[4], const std::uint32_t (&aBig)[4], const std::uint32_t (&aSmall)[4],
                         const std::uint32_t (&bBig)[2], const std::uint32_t (&bSmall)[2]) {
  using namespace on_cpu;
  checkTf32(aBig, "an A operand of mma.sync was not rounded to TF32");
  checkTf32(aSmall, "an A operand of mma.sync was not rounded to TF32");
  checkTf32(bBig, "a B operand of mma.sync was not rounded to TF32");
  checkTf32(bSmall, "a B operand of mma.sync was not rounded to TF32");
  LaneOperands mine{};
  std::memcpy(mine.a, aBig, sizeof aBig);
  std::memcpy(mine.aSmall, aSmall, sizeof aSmall);
  std::memcpy(mine.b, bBig, sizeof bBig);
  std::memcpy(mine.bSmall, bSmall, sizeof bSmall);
  const LaneOperands* lanes = meetWarp(mine);
  const auto big = [](const LaneOperands& o) { return o.a; };
  const auto small = [](const LaneOperands& o) { return o.aSmall; };
  const auto bBigOf = [](const LaneOperands& o) { return o.b; };
  const auto bSmallOf = [](const LaneOperands& o) { return o.bSmall; };
  addProducts(d, lanes, small, bBigOf);
  addProducts(d, lanes, big, bSmallOf);
  addProducts(d, lanes, big, bBigOf);
}

inline void copyAsync4(float* shared, const float* global, bool read) { *shared = read ? *global : 0.f; }
/// A GPU faults on a 16-byte copy from or to an address that is not a multiple of 16.
inline void copyAsync16(float* shared, const float* global) {
  if (reinterpret_cast<std::uintptr_t>(shared) % 16 != 0) on_cpu::fail("cp.async's 16 bytes to an unaligned shared address");
  if (reinterpret_cast<std::uintptr_t>(global) % 16 != 0) on_cpu::fail("cp.async's 16 bytes from an unaligned global address");
  std::memcpy(shared, global, 16);
}
inline void commitCopies() {}
template <int Pending>
inline void waitCopies() {}

}  // namespace warp_mma
