// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/PanelWidth.h"

#include "core/common/Environment.h"

namespace ensemble::panel_product {

bool useWideRegisters() {
  const bool narrow = environment::isSetTo(environment::kCpuVectorFloats, "8",
                                           "the CPU loops' matrix products hold 8 floats a register");
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return !narrow && __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

}  // namespace ensemble::panel_product
