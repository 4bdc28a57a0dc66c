// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/WinogradConv.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>

#include "core/common/AutocastState.h"
#include "core/models/Bf16OnFloatKernels.h"
#include "core/models/OrderedChunkSum.h"
#include "core/models/PanelWidth.h"
#include "core/models/ReluAvgPool.h"
#include "core/models/WinogradLoops.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;
namespace wino = winograd_loops;

/// Images per chunk of the backward pass. Each chunk's weight gradient is summed on its own
/// and the chunks are added in order, so the result is the same on any number of threads.
constexpr int64_t kWinogradImagesPerChunk = 16;

wino::WinogradShape winogradShapeOf(const torch::Tensor& input, int64_t outChannels) {
  wino::WinogradShape shape;
  shape.height = input.size(2);
  shape.width = input.size(3);
  shape.inChannels = input.size(1);
  shape.outChannels = outChannels;
  shape.wideRegisters = panel_product::useWideRegisters();
  return shape;
}

/// The filters in Winograd's domain: `transformed` for the forward, `transposed` for the
/// input's gradient.
struct TransformedWeights {
  torch::Tensor transformed, transposed;
};

TransformedWeights transformWeightsOf(const torch::Tensor& weight, const wino::WinogradShape& shape) {
  const torch::Tensor w = weight.detach().contiguous();
  TransformedWeights weights{torch::empty({wino::kFrequencies, shape.inChannels, shape.outChannels}, w.options()),
                             torch::empty({wino::kFrequencies, shape.outChannels, shape.inChannels}, w.options())};
  wino::transformWeights(w.data_ptr<float>(), weights.transformed.data_ptr<float>(),
                         weights.transposed.data_ptr<float>(), shape);
  return weights;
}

/// The backward shared by both functions below: `imagesBackward(first, last, gradInput,
/// gradTransformed, gradBias)` runs the loops on a chunk of images, into that chunk's sums.
/// Returns the input's, the weight's and the bias's gradients.
template <typename ImagesBackward>
tensor_list winogradBackward(AutogradContext* context, const torch::Tensor& x, const wino::WinogradShape& shape,
                             const ImagesBackward& imagesBackward) {
  const int64_t count = x.size(0);
  torch::Tensor gradInput = torch::empty_like(x, torch::MemoryFormat::ChannelsLast);
  const int64_t chunks = std::max<int64_t>(1, (count + kWinogradImagesPerChunk - 1) / kWinogradImagesPerChunk);
  torch::Tensor chunkTransformed =
      torch::zeros({chunks, wino::kFrequencies, shape.inChannels, shape.outChannels}, x.options());
  torch::Tensor chunkBiases = torch::zeros({chunks, shape.outChannels}, x.options());
  at::parallel_for(0, chunks, 1, [&](int64_t firstChunk, int64_t lastChunk) {
    for (int64_t chunk = firstChunk; chunk < lastChunk; ++chunk) {
      const int64_t first = chunk * kWinogradImagesPerChunk, last = std::min(count, first + kWinogradImagesPerChunk);
      if (first >= last) continue;
      imagesBackward(first, last, gradInput.data_ptr<float>(), chunkTransformed[chunk].data_ptr<float>(),
                     chunkBiases[chunk].data_ptr<float>());
    }
  });
  const torch::Tensor gradTransformed = sumChunksInOrder(chunkTransformed), gradBias = sumChunksInOrder(chunkBiases);
  torch::Tensor gradWeight = torch::empty({shape.outChannels, shape.inChannels, 3, 3}, x.options());
  wino::weightGradient(gradTransformed.data_ptr<float>(), gradWeight.data_ptr<float>(), shape);
  if (!context->needs_input_grad(0)) gradInput = torch::Tensor();
  return {gradInput, gradWeight, gradBias};
}

class WinogradConvFunction final : public torch::autograd::Function<WinogradConvFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const torch::Tensor x = input.detach().contiguous(torch::MemoryFormat::ChannelsLast);
    const wino::WinogradShape shape = winogradShapeOf(x, weight.size(0));
    const TransformedWeights weights = transformWeightsOf(weight, shape);
    const torch::Tensor b = bias.detach().contiguous();
    torch::Tensor output = torch::empty({x.size(0), shape.outChannels, shape.height, shape.width},
                                        x.options().memory_format(torch::MemoryFormat::ChannelsLast));
    at::parallel_for(0, x.size(0), 1, [&](int64_t first, int64_t last) {
      wino::forwardImages(first, last, x.data_ptr<float>(), weights.transformed.data_ptr<float>(),
                          b.data_ptr<float>(), output.data_ptr<float>(), shape);
    });
    // The transformed weights, not the parameters: the optimizer changes those in place after
    // the backward.
    context->save_for_backward({x, weights.transposed});
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& transposed = saved[1];
    const wino::WinogradShape shape = winogradShapeOf(x, transposed.size(1));
    const torch::Tensor grad = gradOutputs.front().to(torch::kFloat32).contiguous(torch::MemoryFormat::ChannelsLast);
    return winogradBackward(context, x, shape, [&](int64_t first, int64_t last, float* gradInput,
                                                   float* gradTransformed, float* gradBias) {
      wino::backwardImages(first, last, x.data_ptr<float>(), transposed.data_ptr<float>(), grad.data_ptr<float>(),
                           gradInput, gradTransformed, gradBias, shape);
    });
  }
};

/// What the fused forward makes and its backward keeps: the images channels-last, the filters
/// for the input's gradient, and ReLU's mask (undefined where none was asked for).
struct ReluPoolForward {
  torch::Tensor images, transposed, pooled, reluMask;
};

/// forwardImagesReluPool over the batch, with ReLU's mask or without it (an evaluation).
ReluPoolForward reluPoolForward(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias,
                                bool withMask) {
  const torch::Tensor x = input.detach().contiguous(torch::MemoryFormat::ChannelsLast);
  const wino::WinogradShape shape = winogradShapeOf(x, weight.size(0));
  const TransformedWeights weights = transformWeightsOf(weight, shape);
  const torch::Tensor b = bias.detach().contiguous();
  torch::Tensor pooled = torch::empty({x.size(0), shape.outChannels, shape.height / 2, shape.width / 2},
                                      x.options().memory_format(torch::MemoryFormat::ChannelsLast));
  torch::Tensor reluMask;
  if (withMask) {
    // A bit per value (WinogradLoops.h); the channels are a multiple of 8.
    reluMask =
        torch::empty({x.size(0), shape.height, shape.width, shape.outChannels / 8}, x.options().dtype(torch::kUInt8));
  }
  uint8_t* const mask = withMask ? reluMask.data_ptr<uint8_t>() : nullptr;
  at::parallel_for(0, x.size(0), 1, [&](int64_t first, int64_t last) {
    wino::forwardImagesReluPool(first, last, x.data_ptr<float>(), weights.transformed.data_ptr<float>(),
                                b.data_ptr<float>(), pooled.data_ptr<float>(), mask, shape);
  });
  return {x, weights.transposed, pooled, reluMask};
}

/// The convolution, ReLU and the 2x2 average pool as one function (forwardImagesReluPool): only
/// the pooled output and a bit of ReLU's mask per convolution output stay for the backward.
class WinogradConvReluPoolFunction final : public torch::autograd::Function<WinogradConvReluPoolFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const ReluPoolForward result = reluPoolForward(input, weight, bias, true);
    context->save_for_backward({result.images, result.transposed, result.reluMask});
    return result.pooled;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& transposed = saved[1];
    const torch::Tensor& reluMask = saved[2];
    const wino::WinogradShape shape = winogradShapeOf(x, transposed.size(1));
    // The pooled gradient comes in either layout (flatten's backward gives NCHW).
    const torch::Tensor gradPooled =
        gradOutputs.front().to(torch::kFloat32).contiguous(torch::MemoryFormat::ChannelsLast);
    return winogradBackward(context, x, shape, [&](int64_t first, int64_t last, float* gradInput,
                                                   float* gradTransformed, float* gradBias) {
      wino::backwardImagesReluPool(first, last, x.data_ptr<float>(), transposed.data_ptr<float>(),
                                   gradPooled.data_ptr<float>(), reluMask.data_ptr<uint8_t>(), gradInput,
                                   gradTransformed, gradBias, shape);
    });
  }
};

/// Whether the Winograd functions take these operands (a float bias included).
bool winogradTakes(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  return winogradConvolves(input, weight) && bias.defined() && bias.scalar_type() == torch::kFloat32;
}

}  // namespace

bool winogradConvolves(const torch::Tensor& input, const torch::Tensor& weight) {
  const auto isCpuFloat = [](const torch::Tensor& t) { return t.is_cpu() && t.scalar_type() == torch::kFloat32; };
  return isCpuFloat(input) && isCpuFloat(weight) && input.dim() == 4 && weight.dim() == 4 &&
         weight.size(2) == 3 && weight.size(3) == 3 && input.size(1) == weight.size(1) &&
         weight.size(1) % wino::kChannelBlock == 0 && weight.size(0) % wino::kChannelBlock == 0 &&
         !autocastEnabled(false);
}

torch::Tensor conv3x3SamePadded(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (bf16AutocastOnCpu(input)) return asBf16OnFloatKernels(conv3x3SamePadded, input, weight, bias);
  if (winogradTakes(input, weight, bias)) {
    return WinogradConvFunction::apply(input, weight, bias);
  }
  namespace F = torch::nn::functional;
  return F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1));
}

torch::Tensor conv3x3ReluAvgPool2x2(const torch::Tensor& input, const torch::Tensor& weight,
                                    const torch::Tensor& bias) {
  if (bf16AutocastOnCpu(input)) return asBf16OnFloatKernels(conv3x3ReluAvgPool2x2, input, weight, bias);
  // The pool needs a window: images of one row or column take the separate ops (an empty output).
  if (!winogradTakes(input, weight, bias) || input.size(2) < 2 || input.size(3) < 2) {
    return reluAvgPool2x2(conv3x3SamePadded(input, weight, bias));
  }
  const bool needsGradient =
      torch::GradMode::is_enabled() && (input.requires_grad() || weight.requires_grad() || bias.requires_grad());
  // An evaluation: the same stage without ReLU's mask, which only a backward reads.
  if (!needsGradient) return reluPoolForward(input, weight, bias, false).pooled;
  return WinogradConvReluPoolFunction::apply(input, weight, bias);
}

}  // namespace ensemble
