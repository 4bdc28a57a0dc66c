// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// ENSEMBLELAB_CPU_CLONES("avx2", "default"): GCC's function multi-versioning, one build of the
// function per target, the best the CPU runs chosen when the program loads. Debian builds for
// the x86-64 baseline (SSE2); the plain loops of the fused layers and of SGD are built this way
// so a machine with AVX2 or AVX-512 gets them. Elsewhere (Clang, other CPUs) the function is
// built once, for the compiler's target.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__gnu_linux__)
#define ENSEMBLELAB_CPU_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#else
#define ENSEMBLELAB_CPU_CLONES(...)
#endif

// Every helper a cloned function calls must be inlined into it: a helper left out of line is
// built once, for the baseline, and a vector loop then keeps its accumulators in memory (10x
// slower, measured: docs/BENCHMARKS.md).
#define ENSEMBLELAB_ALWAYS_INLINE __attribute__((always_inline)) inline
