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

}  // namespace ensemble
