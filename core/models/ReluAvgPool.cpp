// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ReluAvgPool.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <cmath>

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

/// Planes (image x channel) per parallel chunk: enough work to be worth a thread.
constexpr int64_t kPlanesPerChunk = 16;

inline float relu(float v) { return std::isnan(v) ? v : (v > 0.f ? v : 0.f); }

void poolForward(const float* input, float* output, int64_t planes, int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  at::parallel_for(0, planes, kPlanesPerChunk, [&](int64_t first, int64_t last) {
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
  });
}

void poolBackward(const float* input, const float* gradOutput, float* gradInput, int64_t planes,
                  int64_t height, int64_t width) {
  const int64_t outHeight = height / 2, outWidth = width / 2;
  at::parallel_for(0, planes, kPlanesPerChunk, [&](int64_t first, int64_t last) {
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
        for (int64_t w = 0; w < 2 * outWidth; ++w) {
          // threshold_backward keeps the gradient unless relu's result is <= 0.
          gradRow[w] = inRow[w] <= 0.f ? 0.f : gradOutRow[w / 2] / 4.f;
        }
        for (int64_t w = 2 * outWidth; w < width; ++w) gradRow[w] = 0.f;
      }
    }
  });
}

class ReluAvgPool2x2Function final : public torch::autograd::Function<ReluAvgPool2x2Function> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input) {
    const int64_t batch = input.size(0), channels = input.size(1);
    const int64_t height = input.size(2), width = input.size(3);
    torch::Tensor output = torch::empty({batch, channels, height / 2, width / 2}, input.options());
    poolForward(input.data_ptr<float>(), output.data_ptr<float>(), batch * channels, height, width);
    context->save_for_backward({input});
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const torch::Tensor input = context->get_saved_variables().front();
    const torch::Tensor gradOutput = gradOutputs.front().contiguous();
    torch::Tensor gradInput = torch::empty_like(input);
    poolBackward(input.data_ptr<float>(), gradOutput.data_ptr<float>(), gradInput.data_ptr<float>(),
                 input.size(0) * input.size(1), input.size(2), input.size(3));
    return {gradInput};
  }
};

}  // namespace

torch::Tensor reluAvgPool2x2(const torch::Tensor& input) {
  const bool fusable = input.device().is_cpu() && input.scalar_type() == torch::kFloat32 &&
                       input.dim() == 4 && input.is_contiguous() && input.size(2) >= 2 &&
                       input.size(3) >= 2;
  if (!fusable) {
    return torch::nn::functional::avg_pool2d(torch::relu(input),
                                             torch::nn::functional::AvgPool2dFuncOptions(2));
  }
  return ReluAvgPool2x2Function::apply(input);
}

}  // namespace ensemble
