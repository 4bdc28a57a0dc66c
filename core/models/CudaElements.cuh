// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Element types of our CUDA kernels and their conversions to and from float, the type every
// kernel computes in (LibTorch's accumulate type for bf16 and fp16). Under nvcc these are
// CUDA's own types; elsewhere (tests/CudaOnCpu.h runs the kernels' source on the CPU) they
// are LibTorch's host types, which round the same way (to nearest, ties to even).
#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#else
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#endif

// The kernels' code (these .cuh files) lives in an inline namespace named for how it was
// compiled: the names read the same, but a test program that runs the source on the CPU and
// links the CUDA objects never has two definitions of one symbol.
#ifdef __CUDACC__
#define ENSEMBLELAB_KERNEL_CODE compiled_by_nvcc
#else
#define ENSEMBLELAB_KERNEL_CODE run_on_the_cpu
#endif

namespace ensemble::kernels {
inline namespace ENSEMBLELAB_KERNEL_CODE {

#ifdef __CUDACC__
using BFloat16Element = __nv_bfloat16;
using Float16Element = __half;
__device__ __forceinline__ float toFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }
#else
using BFloat16Element = c10::BFloat16;
using Float16Element = c10::Half;
inline float toFloat(c10::BFloat16 v) { return float(v); }
inline float toFloat(c10::Half v) { return float(v); }
#endif
__device__ __forceinline__ float toFloat(float v) { return v; }

template <typename T>
__device__ __forceinline__ T fromFloat(float v);
template <>
__device__ __forceinline__ float fromFloat<float>(float v) { return v; }
#ifdef __CUDACC__
template <>
__device__ __forceinline__ __nv_bfloat16 fromFloat<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__device__ __forceinline__ __half fromFloat<__half>(float v) { return __float2half(v); }
#else
template <>
inline c10::BFloat16 fromFloat<c10::BFloat16>(float v) { return c10::BFloat16(v); }
template <>
inline c10::Half fromFloat<c10::Half>(float v) { return c10::Half(v); }
#endif

// relu in float is the element type's relu (exact); NaN stays NaN, as in torch::relu.
__device__ __forceinline__ float relu(float v) { return v <= 0.f ? 0.f : v; }

}  // namespace ENSEMBLELAB_KERNEL_CODE
}  // namespace ensemble::kernels
