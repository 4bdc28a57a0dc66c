// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Precision.h"

#include <ATen/Context.h>
#include <ATen/autocast_mode.h>

#include "core/common/AutocastState.h"
#include "core/common/Error.h"

namespace ensemble {

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

void backwardOutsideCpuAutocast(const at::Tensor& loss) {
  const CpuAutocastPaused paused;
  loss.backward();
}

}  // namespace ensemble
