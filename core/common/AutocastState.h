// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Autocast's per-thread switch and type for the CPU or CUDA, across LibTorch versions (2.4
// changed the functions). Precision.h's AutocastScope sets them; the fused layers ask
// whether autocast is on, because they would bypass its casts.
#include <c10/core/ScalarType.h>

namespace ensemble {

bool autocastEnabled(bool cuda);
void setAutocastEnabled(bool cuda, bool on);
at::ScalarType autocastDtype(bool cuda);
void setAutocastDtype(bool cuda, at::ScalarType type);

/// CPU autocast off on the calling thread while it lives, then back as it was (bf16 layers on
/// float kernels, core/models/Bf16OnFloatKernels.h, and the steps' backward, Precision.h).
class CpuAutocastPaused final {
 public:
  CpuAutocastPaused() : m_wasEnabled(autocastEnabled(false)) { setAutocastEnabled(false, false); }
  ~CpuAutocastPaused() { setAutocastEnabled(false, m_wasEnabled); }
  CpuAutocastPaused(const CpuAutocastPaused&) = delete;
  CpuAutocastPaused& operator=(const CpuAutocastPaused&) = delete;

 private:
  bool m_wasEnabled;
};

}  // namespace ensemble
