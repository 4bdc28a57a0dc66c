// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model's state as named tensors: its weights (a state_dict) or its optimizer's buffers.
// The vocabulary between training (core/train) and the files that store it (core/io), so it
// lives below both.
#include <torch/types.h>
#include <ATen/core/Dict.h>

#include <string>

namespace ensemble {

using TensorDict = c10::Dict<std::string, torch::Tensor>;

}  // namespace ensemble
