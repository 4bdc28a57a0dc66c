// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// SGD with momentum over one float tensor on the CPU, in one pass: each element's momentum
// and parameter are read and written once (LibTorch's multi-tensor ops make three passes on
// the CPU: the buffer times momentum, plus the gradient, then the parameter). Plain C++
// without LibTorch, built with flags of its own (core/CMakeLists.txt).
#include <cstdint>

namespace ensemble::sgd_loop {

/// Elements [first, last): buffer = momentum * buffer + grad, then
/// parameter = parameter + (-learningRate * buffer), each product and sum rounded to float on
/// its own (no fused multiply-add), so the numbers are the same on every x86-64 CPU.
void step(int64_t first, int64_t last, float* parameter, float* buffer, const float* grad, float momentum,
          float negativeLearningRate);

/// As step, with torch.optim.SGD's weight decay first: grad' = grad + weightDecay * parameter,
/// rounded on its own, then buffer = momentum * buffer + grad'.
void stepWithDecay(int64_t first, int64_t last, float* parameter, float* buffer, const float* grad, float momentum,
                   float negativeLearningRate, float weightDecay);

}  // namespace ensemble::sgd_loop
