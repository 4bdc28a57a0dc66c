// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Precision.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "core/common/Error.h"

namespace ensemble {
namespace {

// LibTorch 2.4 replaced the per-backend autocast functions with ones taking the device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocastEnabled(bool cuda) { return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU); }
void setAutocastEnabled(bool cuda, bool on) { at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, on); }
at::ScalarType autocastDtype(bool cuda) { return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU); }
void setAutocastDtype(bool cuda, at::ScalarType type) {
  at::autocast::set_autocast_dtype(cuda ? at::kCUDA : at::kCPU, type);
}
#else
bool autocastEnabled(bool cuda) { return cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled(); }
void setAutocastEnabled(bool cuda, bool on) {
  if (cuda) {
    at::autocast::set_enabled(on);
  } else {
    at::autocast::set_cpu_enabled(on);
  }
}
at::ScalarType autocastDtype(bool cuda) {
  return cuda ? at::autocast::get_autocast_gpu_dtype() : at::autocast::get_autocast_cpu_dtype();
}
void setAutocastDtype(bool cuda, at::ScalarType type) {
  if (cuda) {
    at::autocast::set_autocast_gpu_dtype(type);
  } else {
    at::autocast::set_autocast_cpu_dtype(type);
  }
}
#endif

}  // namespace

Tf32Scope::Tf32Scope(Precision precision) {
  auto& context = at::globalContext();
  m_previousCublas = context.allowTF32CuBLAS();
  m_previousCudnn = context.allowTF32CuDNN();
  const bool tf32 = precision == Precision::Tf32;
  context.setAllowTF32CuBLAS(tf32);
  context.setAllowTF32CuDNN(tf32);
}

Tf32Scope::~Tf32Scope() {
  at::globalContext().setAllowTF32CuBLAS(m_previousCublas);
  at::globalContext().setAllowTF32CuDNN(m_previousCudnn);
}

AutocastScope::AutocastScope(Precision precision, bool cuda)
    : m_active(precision == Precision::Bf16), m_cuda(cuda) {
  if (!m_active) return;
  m_previousEnabled = autocastEnabled(cuda);
  m_previousDtype = int(autocastDtype(cuda));
  setAutocastDtype(cuda, at::kBFloat16);
  setAutocastEnabled(cuda, true);
}

AutocastScope::~AutocastScope() {
  if (!m_active) return;
  setAutocastEnabled(m_cuda, m_previousEnabled);
  setAutocastDtype(m_cuda, at::ScalarType(m_previousDtype));
  // Casts of the weights are cached while autocast is on; drop them with the scope so a
  // later step casts the updated weights.
  at::autocast::clear_cache();
}

}  // namespace ensemble
