// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reduced-precision options of a run ("precision" in the config, --precision):
//   fp32  every operation in float32 (the default; bit-reproducible on the CPU);
//   tf32  float32 tensors, but NVIDIA GPUs (Ampere and newer) multiply matrices and
//         convolve in TensorFloat-32: CUDA runs only, and only when asked for;
//   bf16  autocast: convolutions and matrix products run in bfloat16, losses, softmax and
//         the weights stay float32 (on GPUs and on the CPU).
#include "core/config/ExperimentConfig.h"

namespace at {
class Tensor;
}

namespace ensemble {

/// cuBLAS's and cuDNN's TensorFloat-32 switches while it lives: on for tf32, off for fp32
/// and bf16. Off must be said: LibTorch's default leaves cuDNN's on, so an "fp32" convolution
/// would run TF32 kernels. Process-wide LibTorch settings: one scope per run, on the thread
/// that drives it; the previous values come back with the scope.
class Tf32Scope final {
 public:
  explicit Tf32Scope(Precision precision);
  ~Tf32Scope();
  Tf32Scope(const Tf32Scope&) = delete;
  Tf32Scope& operator=(const Tf32Scope&) = delete;

 private:
  bool m_previousCublas = false, m_previousCudnn = false;
};

/// bfloat16 autocast for the device kind `cuda` (or the CPU) on the calling thread while it
/// lives, when `precision` is bf16. Autocast is per thread: each replica thread opens one.
class AutocastScope final {
 public:
  AutocastScope(Precision precision, bool cuda);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool m_active = false;
  bool m_cuda = false;
  bool m_previousEnabled = false;
  int m_previousDtype = 0;
};

/// loss.backward() with CPU autocast paused (GPU autocast is left as it is). The backward of
/// LibTorch's ops then runs in the types their forward ran in, as PyTorch advises (backward
/// outside autocast), and is not cast again: under the CPU's bf16 autocast the stacked
/// members' dense layers' gradients went through LibTorch's bf16 loops, 28% of a step.
void backwardOutsideCpuAutocast(const at::Tensor& loss);

}  // namespace ensemble
