// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/WinogradConv.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>

#include "core/common/AutocastState.h"
#include "core/models/OrderedChunkSum.h"
#include "core/models/PanelWidth.h"
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

class WinogradConvFunction final : public torch::autograd::Function<WinogradConvFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input,
                               const torch::Tensor& weight, const torch::Tensor& bias) {
    const torch::Tensor x = input.detach().contiguous(torch::MemoryFormat::ChannelsLast);
    const wino::WinogradShape shape = winogradShapeOf(x, weight.size(0));
    const int64_t count = x.size(0);
    const torch::Tensor w = weight.detach().contiguous();
    torch::Tensor transformed = torch::empty({wino::kFrequencies, shape.inChannels, shape.outChannels}, w.options());
    torch::Tensor transposed = torch::empty({wino::kFrequencies, shape.outChannels, shape.inChannels}, w.options());
    wino::transformWeights(w.data_ptr<float>(), transformed.data_ptr<float>(), transposed.data_ptr<float>(), shape);
    const torch::Tensor b = bias.detach().contiguous();
    torch::Tensor output = torch::empty({count, shape.outChannels, shape.height, shape.width},
                                        x.options().memory_format(torch::MemoryFormat::ChannelsLast));
    at::parallel_for(0, count, 1, [&](int64_t first, int64_t last) {
      wino::forwardImages(first, last, x.data_ptr<float>(), transformed.data_ptr<float>(), b.data_ptr<float>(),
                           output.data_ptr<float>(), shape);
    });
    // The transformed weights, not the parameters: the optimizer changes those in place after
    // the backward.
    context->save_for_backward({x, transposed});
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& transposed = saved[1];
    const wino::WinogradShape shape = winogradShapeOf(x, transposed.size(1));
    const int64_t count = x.size(0);
    const torch::Tensor grad = gradOutputs.front().to(torch::kFloat32).contiguous(torch::MemoryFormat::ChannelsLast);

    torch::Tensor gradInput = torch::empty_like(x, torch::MemoryFormat::ChannelsLast);
    const int64_t chunks = std::max<int64_t>(1, (count + kWinogradImagesPerChunk - 1) / kWinogradImagesPerChunk);
    torch::Tensor chunkTransformed =
        torch::zeros({chunks, wino::kFrequencies, shape.inChannels, shape.outChannels}, x.options());
    torch::Tensor chunkBiases = torch::zeros({chunks, shape.outChannels}, x.options());
    at::parallel_for(0, chunks, 1, [&](int64_t firstChunk, int64_t lastChunk) {
      for (int64_t chunk = firstChunk; chunk < lastChunk; ++chunk) {
        const int64_t first = chunk * kWinogradImagesPerChunk, last = std::min(count, first + kWinogradImagesPerChunk);
        if (first >= last) continue;
        wino::backwardImages(first, last, x.data_ptr<float>(), transposed.data_ptr<float>(), grad.data_ptr<float>(),
                              gradInput.data_ptr<float>(), chunkTransformed[chunk].data_ptr<float>(),
                              chunkBiases[chunk].data_ptr<float>(), shape);
      }
    });
    const torch::Tensor gradTransformed = sumChunksInOrder(chunkTransformed), gradBias = sumChunksInOrder(chunkBiases);
    torch::Tensor gradWeight = torch::empty({shape.outChannels, shape.inChannels, 3, 3}, x.options());
    wino::weightGradient(gradTransformed.data_ptr<float>(), gradWeight.data_ptr<float>(), shape);
    if (!context->needs_input_grad(0)) gradInput = torch::Tensor();
    return {gradInput, gradWeight, gradBias};
  }
};

}  // namespace

bool winogradConvolves(const torch::Tensor& input, const torch::Tensor& weight) {
  const auto isCpuFloat = [](const torch::Tensor& t) { return t.is_cpu() && t.scalar_type() == torch::kFloat32; };
  return isCpuFloat(input) && isCpuFloat(weight) && input.dim() == 4 && weight.dim() == 4 &&
         weight.size(2) == 3 && weight.size(3) == 3 && input.size(1) == weight.size(1) &&
         weight.size(1) % wino::kChannelBlock == 0 && weight.size(0) % wino::kChannelBlock == 0 &&
         !autocastEnabled(false);
}

torch::Tensor conv3x3SamePadded(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (winogradConvolves(input, weight) && bias.defined() && bias.scalar_type() == torch::kFloat32) {
    return WinogradConvFunction::apply(input, weight, bias);
  }
  namespace F = torch::nn::functional;
  return F::conv2d(input, weight, F::Conv2dFuncOptions().bias(bias).padding(1));
}

}  // namespace ensemble
