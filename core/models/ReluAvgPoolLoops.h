// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CPU loops of the fused ReLU + 2x2 average pool (ReluAvgPool.h), each over a range of
// its parallel unit: planes (image x channel) in NCHW, rows of pixels in channels-last
// (NHWC). Plain C++ without LibTorch, in a translation unit of their own, because they are
// built with flags of their own (core/CMakeLists.txt).
#include <cstdint>

namespace ensemble::pool_loops {

/// Planes [first, last) of `input` (NCHW, height x width each) into `output`.
void forwardPlanes(int64_t first, int64_t last, const float* input, float* output, int64_t height,
                   int64_t width);
/// The input's gradient of planes [first, last).
void backwardPlanes(int64_t first, int64_t last, const float* input, const float* gradOutput,
                    float* gradInput, int64_t height, int64_t width);
/// Output rows (image x output row) [first, last) of a channels-last `input`.
void forwardRowsChannelsLast(int64_t first, int64_t last, const float* input, float* output,
                             int64_t channels, int64_t height, int64_t width);
/// The input's gradient of input rows (image x row) [first, last), channels-last.
void backwardRowsChannelsLast(int64_t first, int64_t last, const float* input,
                              const float* gradOutput, float* gradInput, int64_t channels,
                              int64_t height, int64_t width);

}  // namespace ensemble::pool_loops
