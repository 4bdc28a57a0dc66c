// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ReluAvgPool.h"

#if ENSEMBLELAB_WITH_CUDA_KERNELS
#include "core/models/ReluAvgPoolCuda.h"
#endif

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

/// Planes (image x channel) per parallel chunk: enough work to be worth a thread.
constexpr int64_t kPlanesPerChunk = 16;
/// Rows of pixels (image x row, every channel) per parallel chunk in channels-last.
constexpr int64_t kRowsPerChunk = 4;

// NaN stays NaN (v <= 0 is false for it), as in torch::relu. A select, not a branch, so the
// loops below vectorise.
inline float relu(float v) { return v <= 0.f ? 0.f : v; }

/// The gradient through relu then the pool: a quarter of the pooled gradient where relu
/// passed the input, else 0. Both operands are computed unconditionally (a conditional
/// load or division is control flow, which GCC does not vectorise); x * 0.25 is x / 4 bit
/// for bit, a power of two.
inline float reluPoolGradient(float input, float gradOutput) {
  const float quarter = gradOutput * 0.25f;
  return input <= 0.f ? 0.f : quarter;
}

// The loops are built for AVX-512, AVX2 and the x86-64 baseline, one of them chosen at load
// time (GCC's function multi-versioning): Debian builds for the baseline (SSE2), and the
// fused pool was a quarter of the CPU step. The arithmetic per element is the same in each.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__gnu_linux__)
#define ENSEMBLELAB_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ENSEMBLELAB_VECTOR_CLONES
#endif

ENSEMBLELAB_VECTOR_CLONES void poolForwardRange(int64_t first, int64_t last, const float* input,
                                                float* output, int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  for (int64_t plane = first; plane < last; ++plane) {
    const float* in = input + plane * height * width;
    float* out = output + plane * outHeight * outWidth;
    for (int64_t oh = 0; oh < outHeight; ++oh) {
      const float* top = in + 2 * oh * width;
      const float* bottom = top + width;
      float* row = out + oh * outWidth;
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        float sum = 0.f;  // the order avg_pool2d sums a window in
        sum += relu(top[2 * ow]);
        sum += relu(top[2 * ow + 1]);
        sum += relu(bottom[2 * ow]);
        sum += relu(bottom[2 * ow + 1]);
        row[ow] = sum / 4.f;
      }
    }
  }
}

void poolForward(const float* input, float* output, int64_t planes, int64_t height, int64_t width) {
  at::parallel_for(0, planes, kPlanesPerChunk, [&](int64_t first, int64_t last) {
    poolForwardRange(first, last, input, output, height, width);
  });
}

ENSEMBLELAB_VECTOR_CLONES void poolBackwardRange(int64_t first, int64_t last, const float* input,
                                                 const float* gradOutput, float* gradInput,
                                                 int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  for (int64_t plane = first; plane < last; ++plane) {
    const float* in = input + plane * height * width;
    const float* gradOut = gradOutput + plane * outHeight * outWidth;
    float* gradIn = gradInput + plane * height * width;
    for (int64_t h = 0; h < height; ++h) {
      const float* inRow = in + h * width;
      float* gradRow = gradIn + h * width;
      if (h / 2 >= outHeight) {  // an odd last row: outside every window
        for (int64_t w = 0; w < width; ++w) gradRow[w] = 0.f;
        continue;
      }
      const float* gradOutRow = gradOut + (h / 2) * outWidth;
      // threshold_backward keeps the gradient unless relu's result is <= 0. By window, so
      // the loop has no w / 2 gather and vectorises.
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        gradRow[2 * ow] = reluPoolGradient(inRow[2 * ow], gradOutRow[ow]);
        gradRow[2 * ow + 1] = reluPoolGradient(inRow[2 * ow + 1], gradOutRow[ow]);
      }
      for (int64_t w = 2 * outWidth; w < width; ++w) gradRow[w] = 0.f;
    }
  }
}

void poolBackward(const float* input, const float* gradOutput, float* gradInput, int64_t planes,
                  int64_t height, int64_t width) {
  at::parallel_for(0, planes, kPlanesPerChunk, [&](int64_t first, int64_t last) {
    poolBackwardRange(first, last, input, gradOutput, gradInput, height, width);
  });
}

/// Channels-last: a pixel's channels lie side by side, so each output pixel sums the channel
/// vectors of its four input pixels (the channel loop is what the compiler vectorises). Rows
/// of output pixels (image x output row) are the parallel unit.
ENSEMBLELAB_VECTOR_CLONES void poolForwardChannelsLastRange(int64_t first, int64_t last,
                                                            const float* input, float* output,
                                                            int64_t channels, int64_t height,
                                                            int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  for (int64_t outRow = first; outRow < last; ++outRow) {
    const int64_t image = outRow / outHeight, oh = outRow % outHeight;
    const float* top = input + (image * height + 2 * oh) * width * channels;
    const float* bottom = top + width * channels;
    float* out = output + outRow * outWidth * channels;
    for (int64_t ow = 0; ow < outWidth; ++ow) {
      const float* topLeft = top + 2 * ow * channels;
      const float* topRight = topLeft + channels;
      const float* bottomLeft = bottom + 2 * ow * channels;
      const float* bottomRight = bottomLeft + channels;
      float* pixel = out + ow * channels;
      for (int64_t c = 0; c < channels; ++c) {
        float sum = 0.f;  // the order avg_pool2d sums a window in, as in the NCHW kernel
        sum += relu(topLeft[c]);
        sum += relu(topRight[c]);
        sum += relu(bottomLeft[c]);
        sum += relu(bottomRight[c]);
        pixel[c] = sum / 4.f;
      }
    }
  }
}

void poolForwardChannelsLast(const float* input, float* output, int64_t images, int64_t channels,
                             int64_t height, int64_t width) {
  at::parallel_for(0, images * (height / 2), kRowsPerChunk, [&](int64_t first, int64_t last) {
    poolForwardChannelsLastRange(first, last, input, output, channels, height, width);
  });
}

ENSEMBLELAB_VECTOR_CLONES void poolBackwardChannelsLastRange(int64_t first, int64_t last,
                                                             const float* input,
                                                             const float* gradOutput,
                                                             float* gradInput, int64_t channels,
                                                             int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  const int64_t rowValues = width * channels;
  for (int64_t inRow = first; inRow < last; ++inRow) {
    const int64_t image = inRow / height, h = inRow % height;
    const float* in = input + inRow * rowValues;
    float* gradIn = gradInput + inRow * rowValues;
    if (h / 2 >= outHeight) {  // an odd last row: outside every window
      std::fill(gradIn, gradIn + rowValues, 0.f);
      continue;
    }
    const float* gradOutRow = gradOutput + (image * outHeight + h / 2) * outWidth * channels;
    for (int64_t w = 0; w < 2 * outWidth; ++w) {
      const float* gradOutPixel = gradOutRow + (w / 2) * channels;
      const float* inPixel = in + w * channels;
      float* gradPixel = gradIn + w * channels;
      for (int64_t c = 0; c < channels; ++c) {
        gradPixel[c] = reluPoolGradient(inPixel[c], gradOutPixel[c]);
      }
    }
    std::fill(gradIn + 2 * outWidth * channels, gradIn + rowValues, 0.f);
  }
}

void poolBackwardChannelsLast(const float* input, const float* gradOutput, float* gradInput,
                              int64_t images, int64_t channels, int64_t height, int64_t width) {
  at::parallel_for(0, images * height, kRowsPerChunk, [&](int64_t first, int64_t last) {
    poolBackwardChannelsLastRange(first, last, input, gradOutput, gradInput, channels, height,
                                  width);
  });
}

/// The CPU's loops on `input` (float32, contiguous in its layout) into `output`.
void forwardOnCpu(const torch::Tensor& input, torch::Tensor& output, bool channelsLast) {
  const int64_t batch = input.size(0), channels = input.size(1);
  const int64_t height = input.size(2), width = input.size(3);
  if (channelsLast) {
    poolForwardChannelsLast(input.data_ptr<float>(), output.data_ptr<float>(), batch, channels,
                            height, width);
  } else {
    poolForward(input.data_ptr<float>(), output.data_ptr<float>(), batch * channels, height, width);
  }
}

void backwardOnCpu(const torch::Tensor& input, const torch::Tensor& gradOutput,
                   torch::Tensor& gradInput, bool channelsLast) {
  if (channelsLast) {
    poolBackwardChannelsLast(input.data_ptr<float>(), gradOutput.data_ptr<float>(),
                             gradInput.data_ptr<float>(), input.size(0), input.size(1),
                             input.size(2), input.size(3));
  } else {
    poolBackward(input.data_ptr<float>(), gradOutput.data_ptr<float>(), gradInput.data_ptr<float>(),
                 input.size(0) * input.size(1), input.size(2), input.size(3));
  }
}

torch::MemoryFormat layoutOf(bool channelsLast) {
  return channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

/// Whether the fused kernels take `input`'s device and element type.
bool fusedFor(const torch::Tensor& input) {
  const auto type = input.scalar_type();
  if (input.is_cpu()) return type == torch::kFloat32;
#if ENSEMBLELAB_WITH_CUDA_KERNELS
  if (input.is_cuda())
    return type == torch::kFloat32 || type == torch::kBFloat16 || type == torch::kFloat16;
#endif
  return false;
}

/// One autograd function for both devices: the output and the input's gradient keep the
/// input's layout, and the CPU's loops or the GPU's kernels fill them.
class ReluAvgPool2x2Function final : public torch::autograd::Function<ReluAvgPool2x2Function> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input,
                               bool channelsLast) {
    torch::Tensor output =
        torch::empty({input.size(0), input.size(1), input.size(2) / 2, input.size(3) / 2},
                     input.options().memory_format(layoutOf(channelsLast)));
#if ENSEMBLELAB_WITH_CUDA_KERNELS
    if (input.is_cuda()) {
      forwardOnCuda(input, output, channelsLast);
    } else
#endif
    {
      forwardOnCpu(input, output, channelsLast);
    }
    context->save_for_backward({input});
    context->saved_data["channels_last"] = channelsLast;
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const torch::Tensor input = context->get_saved_variables().front();
    const bool channelsLast = context->saved_data["channels_last"].toBool();
    // The pooled gradient comes in either layout (flatten's backward gives NCHW).
    const torch::Tensor gradOutput =
        gradOutputs.front().to(input.scalar_type()).contiguous(layoutOf(channelsLast));
    torch::Tensor gradInput =
        torch::empty(input.sizes(), input.options().memory_format(layoutOf(channelsLast)));
#if ENSEMBLELAB_WITH_CUDA_KERNELS
    if (input.is_cuda()) {
      backwardOnCuda(input, gradOutput, gradInput, channelsLast);
    } else
#endif
    {
      backwardOnCpu(input, gradOutput, gradInput, channelsLast);
    }
    return {gradInput, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor reluAvgPool2x2(const torch::Tensor& input) {
  const bool fusable =
      fusedFor(input) && input.dim() == 4 && input.size(2) >= 2 && input.size(3) >= 2;
  // A tensor of one channel (or one pixel) is contiguous in both layouts: NCHW is taken then.
  if (fusable && input.is_contiguous()) return ReluAvgPool2x2Function::apply(input, false);
  if (fusable && input.is_contiguous(torch::MemoryFormat::ChannelsLast)) {
    return ReluAvgPool2x2Function::apply(input, true);
  }
  return torch::nn::functional::avg_pool2d(torch::relu(input),
                                           torch::nn::functional::AvgPool2dFuncOptions(2));
}

}  // namespace ensemble
