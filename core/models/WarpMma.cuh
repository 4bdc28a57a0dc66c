// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a tensor-core kernel that places its own fragments uses (GroupedConvMmaSyncKernels.cuh):
// TF32 rounding and splitting (for nvcc and the CPU alike), and in PTX the warp's m16n8k8 TF32 product
// (mma.sync) and asynchronous 4-byte (with zero fill) and 16-byte copies from global to shared
// memory (cp.async); sm_80 and later. A CPU test includes tests/WarpMmaOnCpu.h first, which defines those
// PTX functions in the same namespace, with each lane's fragment placed as the PTX ISA places it.
//
// Fragments of mma.m16n8k8 with .tf32 operands, for lane l (g = l / 4, t = l % 4):
//   a[r]: A's row g + 8 (r % 2), column (depth) t + 4 (r / 2)
//   b[r]: B's row (depth) t + 4 r, column g
//   d[r]: D's row g + 8 (r / 2), column 2 t + r % 2
#include <cstdint>
#ifndef __CUDACC__
#include <cstring>
#endif

namespace warp_mma {

#ifdef __CUDACC__
__device__ __forceinline__ std::uint32_t bitsOfFloat(float v) { return __float_as_uint(v); }
__device__ __forceinline__ float floatOfBits(std::uint32_t bits) { return __uint_as_float(bits); }
#else
inline std::uint32_t bitsOfFloat(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}
inline float floatOfBits(std::uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
#endif

/// cvt.rna.tf32.f32: v to the nearest TF32 value (10 bits of mantissa), ties away from zero, the
/// 13 low bits zero; NaN and infinities stay.
#ifdef __CUDACC__
__device__ __forceinline__ std::uint32_t tf32Bits(float v) {
  std::uint32_t bits;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(v));
  return bits;
}
#else
inline std::uint32_t tf32Bits(float v) {
  if (!(v == v) || v - v != 0.f) return bitsOfFloat(v);
  return (bitsOfFloat(v) + 0x1000u) & ~0x1fffu;
}
#endif

/// x as big + small, two TF32 values for three products (GroupedConvMmaSyncKernels.cuh): big is
/// x rounded to nearest (a carry into bit 13, the 13 low bits cleared), small what is left,
/// x - big, exact in float, then truncated to TF32. Four instructions, where cvt.rna for both
/// would take eight (nvcc keeps NaN and infinities apart with a compare and a select each).
/// A NaN x can make big anything (the carry may run into the sign), but small is then NaN, so
/// the sum is NaN too; an infinite x gives NaN (small = inf - inf), as in CUTLASS's 3xTF32.
__device__ __forceinline__ void splitTf32(float x, std::uint32_t& big, std::uint32_t& small) {
  big = (bitsOfFloat(x) + 0x1000u) & ~0x1fffu;
  small = bitsOfFloat(x - floatOfBits(big)) & ~0x1fffu;
}

#ifdef __CUDACC__
/// d += a b for one 16 x 8 tile of a warp, 8 deep, summed in float.
__device__ __forceinline__ void mmaTf32(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// d += aSmall bBig + aBig bSmall + aBig bBig: a product of split operands as three, the small
/// terms first (they are the ones float rounding would lose).
__device__ __forceinline__ void mmaTf32Split(float (&d)[4], const std::uint32_t (&aBig)[4],
                                             const std::uint32_t (&aSmall)[4], const std::uint32_t (&bBig)[2],
                                             const std::uint32_t (&bSmall)[2]) {
  mmaTf32(d, aSmall, bBig);
  mmaTf32(d, aBig, bSmall);
  mmaTf32(d, aBig, bBig);
}

/// *shared = read ? *global : 0, queued: it lands after the waitCopies that covers its group.
/// `global` must point into a buffer even when nothing is read.
__device__ __forceinline__ void copyAsync4(float* shared, const float* global, bool read) {
  const unsigned address = unsigned(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(address), "l"(global), "r"(read ? 4 : 0)
               : "memory");
}

/// 16 bytes, *shared = *global, queued as copyAsync4's; both addresses 16-byte aligned. Through
/// L2 only (.cg, the one form cp.async has for 16 bytes).
__device__ __forceinline__ void copyAsync16(float* shared, const float* global) {
  const unsigned address = unsigned(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(address), "l"(global) : "memory");
}

/// Closes the group of copies queued since the last commit.
__device__ __forceinline__ void commitCopies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Waits until at most `Pending` of this thread's committed groups are still in flight (other
/// threads' copies need a __syncthreads() after it).
template <int Pending>
__device__ __forceinline__ void waitCopies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

#endif  // __CUDACC__

}  // namespace warp_mma
