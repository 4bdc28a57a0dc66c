// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ChunkedLinear.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>

#include "core/common/AutocastState.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

/// Chunks per product. Each chunk packs the other operand again for the BLAS kernel (the
/// weight, 3.2 MB, for the output's rows), so more chunks cost more than they spread.
constexpr int64_t kDenseChunks = 2;

/// Calls product(first, count) for each of kDenseChunks chunks of `rows` rows, side by side.
template <typename Product>
void forEachDenseChunk(int64_t rows, const Product& product) {
  const int64_t perChunk = std::max<int64_t>(1, (rows + kDenseChunks - 1) / kDenseChunks);
  const int64_t chunks = (rows + perChunk - 1) / perChunk;
  at::parallel_for(0, chunks, 1, [&](int64_t firstChunk, int64_t lastChunk) {
    // Grad mode is per thread, and OpenMP's threads do not inherit the caller's: the products
    // are plain arithmetic here, the autograd node is this Function.
    const torch::NoGradGuard noGrad;
    for (int64_t chunk = firstChunk; chunk < lastChunk; ++chunk) {
      const int64_t first = chunk * perChunk;
      product(first, std::min(perChunk, rows - first));
    }
  });
}

class ChunkedLinearFunction final : public torch::autograd::Function<ChunkedLinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input, const torch::Tensor& weight,
                               const torch::Tensor& bias) {
    const torch::Tensor x = input.detach().contiguous(), w = weight.detach().contiguous();
    torch::Tensor output = torch::empty({x.size(0), w.size(0)}, x.options());
    forEachDenseChunk(x.size(0), [&](int64_t first, int64_t count) {
      torch::Tensor rows = output.narrow(0, first, count);
      at::addmm_out(rows, bias.detach(), x.narrow(0, first, count), w.t());
    });
    context->save_for_backward({x, w});
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& w = saved[1];
    const torch::Tensor grad = gradOutputs.front().contiguous();
    torch::Tensor gradInput;
    if (context->needs_input_grad(0)) {
      gradInput = torch::empty_like(x);
      forEachDenseChunk(x.size(0), [&](int64_t first, int64_t count) {
        torch::Tensor rows = gradInput.narrow(0, first, count);
        at::mm_out(rows, grad.narrow(0, first, count), w);
      });
    }
    // Output feature o's weight row is grad[:, o]^T x: chunks of features, each summed over
    // the whole batch.
    torch::Tensor gradWeight = torch::empty_like(w);
    forEachDenseChunk(w.size(0), [&](int64_t first, int64_t count) {
      torch::Tensor rows = gradWeight.narrow(0, first, count);
      at::mm_out(rows, grad.narrow(1, first, count).t(), x);
    });
    return {gradInput, gradWeight, grad.sum(0)};
  }
};

}  // namespace

bool chunkedLinearSplits(const torch::Tensor& input, const torch::Tensor& weight) {
  const auto isCpuFloat = [](const torch::Tensor& t) { return t.is_cpu() && t.scalar_type() == torch::kFloat32; };
  return isCpuFloat(input) && isCpuFloat(weight) && input.dim() == 2 && weight.dim() == 2 && !at::hasMKL() &&
         !autocastEnabled(false);
}

torch::Tensor chunkedLinear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (chunkedLinearSplits(input, weight) && bias.defined() && bias.scalar_type() == torch::kFloat32) {
    return ChunkedLinearFunction::apply(input, weight, bias);
  }
  return torch::linear(input, weight, bias);
}

}  // namespace ensemble
