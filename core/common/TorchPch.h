// SPDX-License-Identifier: GPL-3.0-or-later
// Precompiled header for translation units that use LibTorch.
#pragma once
#include <torch/torch.h>
#include <torch/csrc/jit/serialization/pickle.h>
