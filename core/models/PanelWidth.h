// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How many floats a register of the CPU loops' matrix products holds (PanelProduct.h).

namespace ensemble::panel_product {

/// Whether the products hold 16 floats a register (WideVector): where the CPU has AVX-512,
/// whose 32 registers of 16 floats hold 4 rows x 32 columns of C, twice the columns of the
/// 8-float panels for the same registers and instructions (docs/BENCHMARKS.md measures it).
/// Elsewhere (an AVX2 core has 16 registers of 8) those panels would spill. The environment's
/// ENSEMBLELAB_CPU_VECTOR_FLOATS=8 keeps the 8-float panels anyway. Read once per layer call by
/// the callers of the loops (it may throw ConfigError), which pass it down.
bool useWideRegisters();

}  // namespace ensemble::panel_product
