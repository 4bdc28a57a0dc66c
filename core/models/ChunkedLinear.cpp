// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/models/ChunkedLinear.h"

#include <ATen/Parallel.h>
#include <torch/torch.h>

#include "core/common/AutocastState.h"
#include "core/models/Bf16OnFloatKernels.h"
#include "core/models/DenseLoops.h"
#include "core/models/PanelWidth.h"

namespace ensemble {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

/// Rows per chunk that a thread takes at a time. No sum runs across rows (of the batch, or of
/// the weight for its gradient), so where the chunks fall changes no number.
constexpr int64_t kDenseRowsPerChunk = 8;

/// Calls rows(first, last) over [0, count) in chunks, side by side on LibTorch's threads.
template <typename Rows>
void inChunks(int64_t count, const Rows& rows) {
  at::parallel_for(0, count, kDenseRowsPerChunk, [&](int64_t first, int64_t last) { rows(first, last); });
}

class ChunkedLinearFunction final : public torch::autograd::Function<ChunkedLinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* context, const torch::Tensor& input, const torch::Tensor& weight,
                               const torch::Tensor& bias) {
    const torch::Tensor x = input.detach().contiguous(), w = weight.detach().contiguous();
    const torch::Tensor b = bias.detach().contiguous();
    const dense_loops::DenseShape shape{x.size(0), x.size(1), w.size(0), panel_product::useWideRegisters()};
    // y = ((W x^T)^T + b): x^T first, so that the product streams both operands along rows.
    const torch::Tensor inputT = torch::empty({shape.in, shape.batch}, x.options());
    inChunks(shape.in, [&](int64_t first, int64_t last) {
      dense_loops::transposeColumns(first, last, x.data_ptr<float>(), shape.batch, shape.in, nullptr,
                                    inputT.data_ptr<float>());
    });
    const torch::Tensor outputT = torch::empty({shape.out, shape.batch}, x.options());
    inChunks(shape.out, [&](int64_t first, int64_t last) {
      dense_loops::forwardFeatures(first, last, inputT.data_ptr<float>(), w.data_ptr<float>(),
                                   outputT.data_ptr<float>(), shape);
    });
    torch::Tensor output = torch::empty({shape.batch, shape.out}, x.options());
    inChunks(shape.batch, [&](int64_t first, int64_t last) {
      dense_loops::transposeColumns(first, last, outputT.data_ptr<float>(), shape.out, shape.batch,
                                    b.data_ptr<float>(), output.data_ptr<float>());
    });
    context->save_for_backward({x, w});
    return output;
  }

  static tensor_list backward(AutogradContext* context, tensor_list gradOutputs) {
    const auto saved = context->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& w = saved[1];
    const torch::Tensor grad = gradOutputs.front().contiguous();
    const dense_loops::DenseShape shape{x.size(0), x.size(1), w.size(0), panel_product::useWideRegisters()};
    torch::Tensor gradInput;
    if (context->needs_input_grad(0)) {
      gradInput = torch::empty_like(x);
      inChunks(shape.batch, [&](int64_t first, int64_t last) {
        dense_loops::inputGradientRows(first, last, grad.data_ptr<float>(), w.data_ptr<float>(),
                                       gradInput.data_ptr<float>(), shape);
      });
    }
    torch::Tensor gradWeight = torch::empty_like(w);
    inChunks(shape.out, [&](int64_t first, int64_t last) {
      dense_loops::weightGradientRows(first, last, grad.data_ptr<float>(), x.data_ptr<float>(),
                                      gradWeight.data_ptr<float>(), shape);
    });
    return {gradInput, gradWeight, grad.sum(0)};
  }
};

}  // namespace

bool chunkedLinearSplits(const torch::Tensor& input, const torch::Tensor& weight) {
  const auto isCpuFloat = [](const torch::Tensor& t) { return t.is_cpu() && t.scalar_type() == torch::kFloat32; };
  // Operands that do not fit each other go to torch::linear, which says what is wrong.
  return isCpuFloat(input) && isCpuFloat(weight) && input.dim() == 2 && weight.dim() == 2 &&
         input.size(1) == weight.size(1) && !autocastEnabled(false);
}

torch::Tensor chunkedLinear(const torch::Tensor& input, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (bf16AutocastOnCpu(input)) return asBf16OnFloatKernels(chunkedLinear, input, weight, bias);
  if (chunkedLinearSplits(input, weight) && bias.defined() && bias.scalar_type() == torch::kFloat32 &&
      bias.dim() == 1 && bias.size(0) == weight.size(0)) {
    return ChunkedLinearFunction::apply(input, weight, bias);
  }
  return torch::linear(input, weight, bias);
}

}  // namespace ensemble
