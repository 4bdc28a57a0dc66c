// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Whether steps can be captured in CUDA graphs here, asked without LibTorch's headers
// (core/train/CudaGraphStep.h captures them).

namespace ensemble {

/// Whether this build can capture steps (a CUDA LibTorch).
bool cudaGraphsBuilt();

}  // namespace ensemble
