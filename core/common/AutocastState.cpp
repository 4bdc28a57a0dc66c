// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/AutocastState.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

namespace ensemble {

// LibTorch 2.4 replaced the per-backend autocast functions with ones taking the device type.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
bool autocastEnabled(bool cuda) {
  return at::autocast::is_autocast_enabled(cuda ? at::kCUDA : at::kCPU);
}
void setAutocastEnabled(bool cuda, bool on) {
  at::autocast::set_autocast_enabled(cuda ? at::kCUDA : at::kCPU, on);
}
at::ScalarType autocastDtype(bool cuda) {
  return at::autocast::get_autocast_dtype(cuda ? at::kCUDA : at::kCPU);
}
void setAutocastDtype(bool cuda, at::ScalarType type) {
  at::autocast::set_autocast_dtype(cuda ? at::kCUDA : at::kCPU, type);
}
#else
bool autocastEnabled(bool cuda) {
  return cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
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

}  // namespace ensemble
