// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// CUDA's warp matrix functions (nvcuda::wmma, <mma.h>) on the CPU, for kernels run by
// tests/CudaOnCpu.h. Include it after CudaOnCpu.h and before the kernel's .cuh.
//
// On a GPU a fragment is spread over a warp's 32 lanes, and each matrix function is called by
// all of them with the same arguments. Here lane 0 holds the whole tile and does the work;
// the other lanes' calls do nothing. Reading another lane's stores needs a barrier on a GPU
// too, so a kernel that is right there reads the same values here. What a GPU requires of the
// arguments is checked on every call, because a GPU would fail or read garbage without a word:
// a 256-bit aligned pointer, a leading dimension of a multiple of 16 bytes, and TF32 operands
// that are already rounded to TF32 (__float_to_tf32).
//
// Products are summed in float in the order of k. A tensor core's order and rounding differ
// slightly: tests compare with LibTorch to float rounding, and ensemble-lab-kernel-check
// compares the GPU's results.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace nvcuda::wmma {

struct matrix_a;
struct matrix_b;
struct accumulator;
struct row_major;
struct col_major;
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32;
}

namespace on_cpu {

template <typename Use, int M, int N, int K>
struct Extent;
template <int M, int N, int K>
struct Extent<matrix_a, M, N, K> {
  static constexpr int rows = M, columns = K;
};
template <int M, int N, int K>
struct Extent<matrix_b, M, N, K> {
  static constexpr int rows = K, columns = N;
};
template <int M, int N, int K>
struct Extent<accumulator, M, N, K> {
  static constexpr int rows = M, columns = N;
};

/// What a fragment of type T reads from memory: TF32 operands are floats.
template <typename T>
struct Stored {
  using type = T;
};
template <>
struct Stored<precision::tf32> {
  using type = float;
};

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "WmmaOnCpu: %s (a GPU would fail or compute garbage)\n", what);
  std::abort();
}

inline bool isLaneZero() { return threadIdx.x % 32 == 0; }

template <typename T>
void checkOperand(const T* pointer, unsigned ldm) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % 32 != 0) fail("a matrix pointer is not 256-bit aligned");
  if ((ldm * sizeof(T)) % 16 != 0) fail("a leading dimension is not a multiple of 16 bytes");
}

inline bool isTf32(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return (bits & 0x1fffu) == 0 || v != v;
}

}  // namespace on_cpu

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  static constexpr int rows = on_cpu::Extent<Use, M, N, K>::rows;
  static constexpr int columns = on_cpu::Extent<Use, M, N, K>::columns;
  static constexpr int num_elements = rows * columns;
  float x[num_elements];  // row by row; only lane 0's is the tile
  float& at(int row, int column) { return x[row * columns + column]; }
  float at(int row, int column) const { return x[row * columns + column]; }
};

/// cvt.rna.tf32.f32: to the nearest TF32 value (10 bits of mantissa), ties away from zero.
inline float __float_to_tf32(float v) {
  if (!(v == v) || v - v != 0.f) return v;  // NaN and infinities stay
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits = (bits + 0x1000u) & ~0x1fffu;
  std::memcpy(&v, &bits, sizeof bits);
  return v;
}

template <typename Use, int M, int N, int K, typename T, typename Layout>
void fill_fragment(fragment<Use, M, N, K, T, Layout>& f, float value) {
  if (!on_cpu::isLaneZero()) return;
  for (float& v : f.x) v = value;
}

/// matrix_a or matrix_b: element (r, c) at p[r * ldm + c] (row_major) or p[c * ldm + r].
template <typename Use, int M, int N, int K, typename T, typename Layout>
void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const typename on_cpu::Stored<T>::type* p,
                      unsigned ldm) {
  if (!on_cpu::isLaneZero()) return;
  on_cpu::checkOperand(p, ldm);
  using Fragment = fragment<Use, M, N, K, T, Layout>;
  constexpr bool rowMajor = std::is_same_v<Layout, row_major>;
  static_assert(rowMajor || std::is_same_v<Layout, col_major>, "an operand fragment names its layout");
  for (int r = 0; r < Fragment::rows; ++r) {
    for (int c = 0; c < Fragment::columns; ++c) {
      const float v = float(rowMajor ? p[r * ldm + c] : p[c * ldm + r]);
      if constexpr (std::is_same_v<T, precision::tf32>) {
        if (!on_cpu::isTf32(v)) on_cpu::fail("a TF32 operand was not rounded with __float_to_tf32");
      }
      f.at(r, c) = v;
    }
  }
}

template <int M, int N, int K>
void store_matrix_sync(float* p, const fragment<accumulator, M, N, K, float>& f, unsigned ldm, layout_t layout) {
  if (!on_cpu::isLaneZero()) return;
  on_cpu::checkOperand(p, ldm);
  for (int r = 0; r < M; ++r) {
    for (int c = 0; c < N; ++c) (layout == mem_row_major ? p[r * ldm + c] : p[c * ldm + r]) = f.at(r, c);
  }
}

/// d = a b + c, each element's products added to c in the order of k.
template <int M, int N, int K, typename T, typename LayoutA, typename LayoutB>
void mma_sync(fragment<accumulator, M, N, K, float>& d, const fragment<matrix_a, M, N, K, T, LayoutA>& a,
              const fragment<matrix_b, M, N, K, T, LayoutB>& b, const fragment<accumulator, M, N, K, float>& c) {
  if (!on_cpu::isLaneZero()) return;
  fragment<accumulator, M, N, K, float> result;
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      float sum = c.at(m, n);
      for (int k = 0; k < K; ++k) sum += a.at(m, k) * b.at(k, n);
      result.at(m, n) = sum;
    }
  }
  d = result;
}

}  // namespace nvcuda::wmma
