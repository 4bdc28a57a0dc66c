// SPDX-License-Identifier: GPL-3.0-or-later
// Our CUDA kernels' own source run on the CPU (tests/CudaOnCpu.h) with the launch geometry
// the CUDA launchers use, against LibTorch's ops:
// - the fused ReLU + 2x2 average pool (core/models/ReluAvgPoolKernels.cuh): bit for bit, as
//   on a GPU, in fp32 and bf16, both layouts, odd sizes, zeros and NaN;
// and, computed in double:
// - the fused first layer (core/models/ConvReluPoolKernels.cuh): the pooled output and the
//   weight and bias gradients of conv2d + relu + avg_pool2d, in both layouts, on odd image
//   sizes, over several chunks of images, through the forward grid's stride loop, in bf16,
//   and with NaN;
// - the grouped 3x3 convolution (core/models/GroupedConvKernels.cuh): the output, the input's
//   gradient (through groupedConvInputGradientWeight, as GroupedConv.cpp computes it) and the
//   weight's, with partial tiles of pixels, channels and taps and several chunks of pixels;
// - the same on tensor cores (core/models/GroupedConvMmaKernels.cuh, tests/WmmaOnCpu.h), in
//   TF32 and bf16, against LibTorch in double on the operands rounded as a tensor core takes
//   them;
// - the same on mma.sync (core/models/GroupedConvMmaSyncKernels.cuh, tests/WarpMmaOnCpu.h:
//   every lane's fragment where the PTX ISA puts it), with three TF32 products of split
//   operands against LibTorch in double on the float operands (fp32's accuracy), and with one
//   on the operands rounded to TF32.
// A GPU runs the same source in ensemble-lab-kernel-check (scripts/gpu-check.sh).
#include <torch/torch.h>

#include <QtTest>

#include "tests/CudaOnCpu.h"
#include "tests/WarpMmaOnCpu.h"
#include "tests/WmmaOnCpu.h"
// After CudaOnCpu.h, WarpMmaOnCpu.h and WmmaOnCpu.h, which define CUDA's qualifiers, the PTX
// that GroupedConvMmaSyncKernels.cuh uses, and the warp matrix functions.
#include "core/models/ConvReluPoolKernels.cuh"
#include "core/models/GroupedConvKernels.cuh"
#include "core/models/GroupedConvMmaKernels.cuh"
#include "core/models/GroupedConvMmaSyncKernels.cuh"
#include "core/models/ReluAvgPoolKernels.cuh"
// (LibTorch's side)
#include "core/models/GroupedConv.h"
#include "tests/TensorChecks.h"

using namespace ensemble;
using testing::closeRelative;
namespace conv_pool = ensemble::kernels::conv_pool;
namespace grouped = ensemble::kernels::grouped_conv;
namespace grouped_mma = ensemble::kernels::grouped_conv_mma;
namespace grouped_mma_sync = ensemble::kernels::grouped_conv_mma_sync;
namespace relu_pool = ensemble::kernels::relu_pool;

namespace {

struct Layer {
  torch::Tensor images, weight, bias;  // float: [N, 1, H, W], [C, 1, 3, 3], [C]
};

Layer randomLayer(int64_t images, int64_t channels, int64_t height, int64_t width) {
  torch::manual_seed(5);
  // Some pixels exactly zero and some weights negative: ReLU then blocks part of every window.
  torch::Tensor pixels = torch::rand({images, 1, height, width});
  pixels.view(-1).index_put_({torch::arange(0, pixels.numel(), 5)}, 0.0);
  return {pixels, torch::randn({channels, 1, 3, 3}) * 0.5, torch::randn({channels}) * 0.1};
}

kernels::ConvPoolShape shapeOf(const Layer& layer, bool channelsLast) {
  return {layer.images.size(0), layer.weight.size(0), layer.images.size(2), layer.images.size(3), channelsLast};
}

torch::MemoryFormat layoutOf(bool channelsLast) {
  return channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
}

/// The forward kernel's pooled output, in `type`, from a grid of `blocks` (0: the launcher's).
template <typename Out, typename Index = int32_t>
torch::Tensor forwardOnCpu(const Layer& layer, bool channelsLast, torch::ScalarType type, unsigned blocks = 0) {
  const kernels::ConvPoolShape shape = shapeOf(layer, channelsLast);
  torch::Tensor pooled = torch::empty({shape.images, shape.channels, shape.height / 2, shape.width / 2},
                                      torch::TensorOptions(type).memory_format(layoutOf(channelsLast)));
  cuda_on_cpu::launch(conv_pool::forwardKernel<Out, Index>, dim3(blocks ? blocks : conv_pool::forwardBlocks(shape)),
                      dim3(conv_pool::kThreads), layer.images.data_ptr<float>(), layer.weight.data_ptr<float>(),
                      layer.bias.data_ptr<float>(), static_cast<Out*>(pooled.data_ptr()), shape);
  return pooled;
}

/// The backward kernels' weight and bias gradients for `gradPooled` (in the layout and type
/// the forward gave).
template <typename Grad>
std::pair<torch::Tensor, torch::Tensor> backwardOnCpu(const Layer& layer, const torch::Tensor& gradPooled,
                                                      bool channelsLast) {
  const kernels::ConvPoolShape shape = shapeOf(layer, channelsLast);
  torch::Tensor scratch = torch::full({conv_pool::chunkCount(shape) * shape.channels * conv_pool::kSums}, NAN);
  torch::Tensor gradWeight = torch::full({shape.channels, 1, 3, 3}, NAN), gradBias = torch::full({shape.channels}, NAN);
  cuda_on_cpu::launch(conv_pool::chunkSumsKernel<Grad, int32_t>,
                      dim3(unsigned(conv_pool::chunkCount(shape)), unsigned(shape.channels)), dim3(conv_pool::kThreads),
                      layer.images.data_ptr<float>(), layer.weight.data_ptr<float>(), layer.bias.data_ptr<float>(),
                      static_cast<const Grad*>(gradPooled.data_ptr()), scratch.data_ptr<float>(), shape);
  cuda_on_cpu::launch(conv_pool::addChunksKernel, dim3(conv_pool::chunkSumBlocks(shape)), dim3(conv_pool::kThreads),
                      static_cast<const float*>(scratch.data_ptr<float>()), gradWeight.data_ptr<float>(),
                      gradBias.data_ptr<float>(), shape);
  return {gradWeight, gradBias};
}

/// LibTorch's unfused layer in double: the pooled output and, for `gradPooled`, the weight's
/// and the bias's gradients.
struct Reference {
  torch::Tensor pooled, gradWeight, gradBias;
};

Reference referenceOf(const Layer& layer, const torch::Tensor& gradPooled) {
  namespace F = torch::nn::functional;
  const torch::Tensor weight = layer.weight.to(torch::kFloat64).requires_grad_(true);
  const torch::Tensor bias = layer.bias.to(torch::kFloat64).requires_grad_(true);
  const torch::Tensor pooled = F::avg_pool2d(
      torch::relu(F::conv2d(layer.images.to(torch::kFloat64), weight, F::Conv2dFuncOptions().bias(bias).padding(1))),
      F::AvgPool2dFuncOptions(2));
  if (gradPooled.defined()) pooled.backward(gradPooled.to(torch::kFloat64));
  return {pooled.detach(), weight.grad(), bias.grad()};
}

/// The pool kernels' output and input gradient for `input` (contiguous in its layout) and
/// `gradOutput`, in `Element` (float or c10::BFloat16).
template <typename Element>
std::pair<torch::Tensor, torch::Tensor> reluPoolOnCpu(const torch::Tensor& input, const torch::Tensor& gradOutput,
                                                      bool channelsLast) {
  const kernels::PoolShape shape{input.size(0), input.size(1), input.size(2), input.size(3), channelsLast};
  const auto layout = layoutOf(channelsLast);
  torch::Tensor output = torch::empty({shape.images, shape.channels, shape.height / 2, shape.width / 2},
                                      input.options().memory_format(layout));
  torch::Tensor gradInput = torch::empty(input.sizes(), input.options().memory_format(layout));
  const torch::Tensor gradInOrder = gradOutput.contiguous(layout);
  cuda_on_cpu::launch(relu_pool::forwardKernel<Element, int32_t>, dim3(relu_pool::blocksFor(output.numel())),
                      dim3(relu_pool::kThreads), static_cast<const Element*>(input.data_ptr()),
                      static_cast<Element*>(output.data_ptr()), shape);
  cuda_on_cpu::launch(relu_pool::backwardKernel<Element, int32_t>, dim3(relu_pool::blocksFor(input.numel())),
                      dim3(relu_pool::kThreads), static_cast<const Element*>(input.data_ptr()),
                      static_cast<const Element*>(gradInOrder.data_ptr()), static_cast<Element*>(gradInput.data_ptr()),
                      shape);
  return {output, gradInput};
}

/// A grouped convolution's sizes, from a test's data row (addGroupedCaseColumns' columns).
struct GroupedCase {
  int images, groups, inChannels, outChannels, height, width;
};

void addGroupedCaseColumns() {
  for (const char* column : {"images", "groups", "inChannels", "outChannels", "height", "width"}) {
    QTest::addColumn<int>(column);
  }
}

GroupedCase fetchGroupedCase() {
  QFETCH(int, images);
  QFETCH(int, groups);
  QFETCH(int, inChannels);
  QFETCH(int, outChannels);
  QFETCH(int, height);
  QFETCH(int, width);
  return {images, groups, inChannels, outChannels, height, width};
}

/// Random operands for it, the same for every test (seed 8): input, filters (scaled to keep
/// the sums near 1), bias, and the output's gradient.
struct GroupedOperands {
  torch::Tensor in, weight, bias, gradOut;
};

GroupedOperands randomGroupedOperands(const GroupedCase& c) {
  torch::manual_seed(8);
  GroupedOperands operands;
  operands.in = torch::randn({c.images, c.groups * c.inChannels, c.height, c.width});
  operands.weight = torch::randn({c.groups * c.outChannels, c.inChannels, 3, 3}) * 0.2;
  operands.bias = torch::randn({c.groups * c.outChannels});
  operands.gradOut = torch::randn({c.images, c.groups * c.outChannels, c.height, c.width});
  return operands;
}

kernels::GroupedConvShape groupedShapeOf(const torch::Tensor& in, int64_t groups, int64_t outChannels) {
  return {in.size(0), groups, in.size(1) / groups, outChannels / groups, in.size(2), in.size(3)};
}

/// The forward kernel: conv2d(in, weight, bias, padding 1, groups); `bias` may be undefined.
torch::Tensor groupedForwardOnCpu(const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias,
                                  int64_t groups) {
  const kernels::GroupedConvShape shape = groupedShapeOf(in, groups, weight.size(0));
  torch::Tensor out = torch::full({in.size(0), weight.size(0), in.size(2), in.size(3)}, NAN);
  const int channelsPerThread = grouped::channelsPerThreadFor(shape);
  const bool whole = grouped::wholeStagesFor(shape);
  const auto eight = whole ? grouped::forwardKernel<8, int32_t, true> : grouped::forwardKernel<8, int32_t, false>;
  const auto four = whole ? grouped::forwardKernel<4, int32_t, true> : grouped::forwardKernel<4, int32_t, false>;
  const auto kernel = channelsPerThread == 8 ? eight : four;
  cuda_on_cpu::launch(kernel,
                      grouped::forwardGrid(shape, channelsPerThread), dim3(grouped::kThreads),
                      static_cast<const float*>(in.data_ptr<float>()), static_cast<const float*>(weight.data_ptr<float>()),
                      static_cast<const float*>(bias.defined() ? bias.data_ptr<float>() : nullptr), out.data_ptr<float>(),
                      shape);
  return out;
}

/// A weight gradient as the launchers compute it: `launchChunks(shape, scratch)` runs a chunk
/// kernel into the per-chunk scratch, then addWeightChunksKernel adds the chunks in order.
template <typename LaunchChunks>
torch::Tensor weightGradientOnCpu(const torch::Tensor& in, const torch::Tensor& gradOut, int64_t groups,
                                  const LaunchChunks& launchChunks) {
  const kernels::GroupedConvShape shape = groupedShapeOf(in, groups, gradOut.size(1));
  torch::Tensor scratch = torch::full({grouped::chunkCount(shape) * groups * shape.outChannels * shape.inChannels * 9}, NAN);
  torch::Tensor gradWeight = torch::full({gradOut.size(1), shape.inChannels, 3, 3}, NAN);
  launchChunks(shape, scratch.data_ptr<float>());
  cuda_on_cpu::launch(grouped::addWeightChunksKernel, dim3(grouped::addChunksBlocks(shape)), dim3(grouped::kThreads),
                      static_cast<const float*>(scratch.data_ptr<float>()), gradWeight.data_ptr<float>(), shape);
  return gradWeight;
}

/// The fp32 weight-gradient kernels for `gradOut`.
torch::Tensor groupedWeightGradientOnCpu(const torch::Tensor& in, const torch::Tensor& gradOut, int64_t groups) {
  return weightGradientOnCpu(in, gradOut, groups, [&](const kernels::GroupedConvShape& shape, float* scratch) {
    cuda_on_cpu::launch(grouped::weightGradientChunkKernel<int32_t>, grouped::weightGradientGrid(shape),
                        dim3(grouped::kThreads), static_cast<const float*>(in.data_ptr<float>()),
                        static_cast<const float*>(gradOut.data_ptr<float>()), scratch, shape);
  });
}

/// Float values rounded to TF32 as cvt.rna.tf32.f32 rounds them (to nearest, ties away from
/// zero: a carry into bit 13 of the magnitude, then the 13 low bits cleared).
torch::Tensor roundedToTf32(const torch::Tensor& values) {
  const torch::Tensor bits = values.contiguous().view(torch::kInt32);
  return (bits + 0x1000).bitwise_and(~0x1fff).view(torch::kFloat32);
}

/// The tensor-core forward kernel on `in` and `weight` (float for TF32, or bfloat16), bias float.
template <typename Element>
torch::Tensor tensorCoreForwardOnCpu(const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias,
                                     int64_t groups) {
  const kernels::GroupedConvShape shape = groupedShapeOf(in, groups, weight.size(0));
  torch::Tensor out = torch::full({in.size(0), weight.size(0), in.size(2), in.size(3)}, NAN, in.options());
  const auto kernel = grouped_mma::wholeStagesFor<Element>(shape)
                          ? grouped_mma::forwardKernel<Element, int32_t, true>
                          : grouped_mma::forwardKernel<Element, int32_t, false>;
  cuda_on_cpu::launch(kernel, grouped_mma::forwardGrid(shape),
                      dim3(grouped::kThreads), static_cast<const Element*>(in.data_ptr()),
                      static_cast<const Element*>(weight.data_ptr()),
                      static_cast<const float*>(bias.defined() ? bias.data_ptr<float>() : nullptr),
                      static_cast<Element*>(out.data_ptr()), shape);
  return out;
}

/// The tensor-core weight-gradient kernel, then the fp32 kernels' chunk sum; float.
template <typename Element>
torch::Tensor tensorCoreWeightGradientOnCpu(const torch::Tensor& in, const torch::Tensor& gradOut, int64_t groups) {
  return weightGradientOnCpu(in, gradOut, groups, [&](const kernels::GroupedConvShape& shape, float* scratch) {
    cuda_on_cpu::launch(grouped_mma::weightGradientChunkKernel<Element, int32_t>, grouped::weightGradientGrid(shape),
                        dim3(grouped::kThreads), static_cast<const Element*>(in.data_ptr()),
                        static_cast<const Element*>(gradOut.data_ptr()), scratch, shape);
  });
}

/// The mma.sync forward kernel with `Products` TF32 products a multiply (3: split operands), as
/// the launcher picks its tile and stages; float. StagedWeights: the filters staged first by
/// stageWeightsKernel into a buffer of NaN (so a float it leaves unwritten shows), as the
/// launcher does with ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged.
template <int Products, bool StagedWeights = false>
torch::Tensor mmaSyncForwardOnCpu(const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias,
                                  int64_t groups) {
  const kernels::GroupedConvShape shape = groupedShapeOf(in, groups, weight.size(0));
  torch::Tensor out = torch::full({in.size(0), weight.size(0), in.size(2), in.size(3)}, NAN);
  torch::Tensor filters = weight;
  if (StagedWeights) {
    filters = torch::full({grouped_mma_sync::stagedWeightFloats(shape)}, NAN);
    cuda_on_cpu::launch(grouped_mma_sync::stageWeightsKernel, grouped_mma_sync::stageWeightsGrid(shape),
                        dim3(grouped_mma_sync::kStagingThreads), static_cast<const float*>(weight.data_ptr<float>()),
                        filters.data_ptr<float>(), shape);
  }
  const int channelTiles = grouped_mma_sync::channelTilesFor(shape);
  const bool whole = grouped_mma_sync::wholeStagesFor(shape);
  const auto wide = whole ? grouped_mma_sync::forwardKernel<4, Products, int32_t, true, StagedWeights>
                          : grouped_mma_sync::forwardKernel<4, Products, int32_t, false, StagedWeights>;
  const auto narrow = whole ? grouped_mma_sync::forwardKernel<2, Products, int32_t, true, StagedWeights>
                            : grouped_mma_sync::forwardKernel<2, Products, int32_t, false, StagedWeights>;
  cuda_on_cpu::launch(channelTiles == 4 ? wide : narrow, grouped_mma_sync::forwardGrid(shape, channelTiles),
                      dim3(grouped::kThreads), static_cast<const float*>(in.data_ptr<float>()),
                      static_cast<const float*>(filters.data_ptr<float>()),
                      static_cast<const float*>(bias.defined() ? bias.data_ptr<float>() : nullptr),
                      out.data_ptr<float>(), shape);
  return out;
}

/// Whether two float tensors hold the same bits (NaN where the other has the same NaN).
bool sameBits(const torch::Tensor& a, const torch::Tensor& b) {
  return a.sizes() == b.sizes() && torch::equal(a.contiguous().view(torch::kInt32), b.contiguous().view(torch::kInt32));
}

/// The mma.sync weight-gradient kernel, then the fp32 kernels' chunk sum; float.
template <int Products>
torch::Tensor mmaSyncWeightGradientOnCpu(const torch::Tensor& in, const torch::Tensor& gradOut, int64_t groups) {
  return weightGradientOnCpu(in, gradOut, groups, [&](const kernels::GroupedConvShape& shape, float* scratch) {
    cuda_on_cpu::launch(grouped_mma_sync::weightGradientChunkKernel<Products, int32_t>,
                        grouped::weightGradientGrid(shape), dim3(grouped::kThreads),
                        static_cast<const float*>(in.data_ptr<float>()),
                        static_cast<const float*>(gradOut.data_ptr<float>()), scratch, shape);
  });
}

/// The largest difference from `expected`, relative to its largest value.
double relativeError(const torch::Tensor& actual, const torch::Tensor& expected) {
  const torch::Tensor a = actual.to(torch::kFloat64).nan_to_num(), e = expected.to(torch::kFloat64).nan_to_num();
  return (a - e).abs().max().item<double>() / e.abs().max().item<double>();
}

/// LibTorch's grouped convolution in double: the output, and the input's and the weight's
/// gradients for `gradOut`.
struct GroupedReference {
  torch::Tensor out, gradInput, gradWeight;
};

GroupedReference groupedReferenceOf(const torch::Tensor& in, const torch::Tensor& weight, const torch::Tensor& bias,
                                    const torch::Tensor& gradOut, int64_t groups) {
  namespace F = torch::nn::functional;
  const torch::Tensor in64 = in.to(torch::kFloat64).requires_grad_(true);
  const torch::Tensor weight64 = weight.to(torch::kFloat64).requires_grad_(true);
  const torch::Tensor out =
      F::conv2d(in64, weight64, F::Conv2dFuncOptions().bias(bias.to(torch::kFloat64)).padding(1).groups(groups));
  out.backward(gradOut.to(torch::kFloat64));
  return {out.detach(), in64.grad(), weight64.grad()};
}

}  // namespace

class TestCudaKernelsOnCpu final : public QObject {
  Q_OBJECT

 private slots:
  void fusedFirstLayerMatchesLibTorch_data() {
    QTest::addColumn<int>("images");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    QTest::addColumn<bool>("channelsLast");
    QTest::newRow("Fashion-MNIST 28x28, 20 images (chunks of 16 and 4), NCHW") << 20 << 8 << 28 << 28 << false;
    QTest::newRow("Fashion-MNIST 28x28, 20 images, channels-last") << 20 << 8 << 28 << 28 << true;
    QTest::newRow("odd 7x9: the last row and column are in no window, NCHW") << 3 << 5 << 7 << 9 << false;
    QTest::newRow("odd 9x7, channels-last") << 3 << 5 << 9 << 7 << true;
    QTest::newRow("2x3: one window, every tap near the padding") << 2 << 3 << 2 << 3 << false;
    QTest::newRow("33 images: three chunks, the last of one image") << 33 << 2 << 6 << 6 << true;
  }
  void fusedFirstLayerMatchesLibTorch() {
    QFETCH(int, images);
    QFETCH(int, channels);
    QFETCH(int, height);
    QFETCH(int, width);
    QFETCH(bool, channelsLast);
    const Layer layer = randomLayer(images, channels, height, width);
    const torch::Tensor pooled = forwardOnCpu<float>(layer, channelsLast, torch::kFloat32);
    QVERIFY(pooled.is_contiguous(layoutOf(channelsLast)));
    const torch::Tensor gradPooled = torch::randn(pooled.sizes()).contiguous(layoutOf(channelsLast));
    const Reference reference = referenceOf(layer, gradPooled);
    QVERIFY(closeRelative(pooled, reference.pooled, 1e-6));
    const auto [gradWeight, gradBias] = backwardOnCpu<float>(layer, gradPooled, channelsLast);
    QVERIFY(closeRelative(gradWeight, reference.gradWeight, 1e-5));
    QVERIFY(closeRelative(gradBias, reference.gradBias, 1e-5));
  }

  // A grid smaller than the output (as the launcher caps it on a large batch): the loop
  // strides over the rest, every output once. The 64-bit index version computes the same.
  void forwardStridesOverAnyGridAndIndexWidth() {
    const Layer layer = randomLayer(5, 7, 10, 12);
    const torch::Tensor full = forwardOnCpu<float>(layer, false, torch::kFloat32);
    QVERIFY(conv_pool::forwardBlocks(shapeOf(layer, false)) > 3);
    QVERIFY(torch::equal(forwardOnCpu<float>(layer, false, torch::kFloat32, 3), full));
    QVERIFY(torch::equal(forwardOnCpu<float, int64_t>(layer, false, torch::kFloat32), full));
    QVERIFY(closeRelative(full, referenceOf(layer, {}).pooled, 1e-6));
  }

  // Under bf16 autocast the pooled output and its gradient are bf16: computed in float,
  // rounded once.
  void bfloat16OutputAndGradient() {
    const Layer layer = randomLayer(6, 4, 8, 8);
    const torch::Tensor pooled = forwardOnCpu<c10::BFloat16>(layer, true, torch::kBFloat16);
    QCOMPARE(pooled.scalar_type(), torch::kBFloat16);
    QVERIFY(torch::equal(pooled, forwardOnCpu<float>(layer, true, torch::kFloat32).to(torch::kBFloat16)));
    const torch::Tensor gradPooled = torch::randn(pooled.sizes()).to(torch::kBFloat16).contiguous(layoutOf(true));
    const Reference reference = referenceOf(layer, gradPooled);
    const auto [gradWeight, gradBias] = backwardOnCpu<c10::BFloat16>(layer, gradPooled, true);
    QVERIFY(closeRelative(gradWeight, reference.gradWeight, 1e-5));  // the gradient itself is exact in float
    QVERIFY(closeRelative(gradBias, reference.gradBias, 1e-5));
  }

  // A NaN pixel makes every window that reads it NaN (ReLU passes NaN, as torch::relu does),
  // and the weights' gradient NaN, as LibTorch's ops do.
  void nanPropagatesAsInLibTorch() {
    Layer layer = randomLayer(2, 3, 6, 6);
    layer.images[1][0][2][3] = NAN;
    const torch::Tensor pooled = forwardOnCpu<float>(layer, false, torch::kFloat32);
    const torch::Tensor gradPooled = torch::randn(pooled.sizes());
    const Reference reference = referenceOf(layer, gradPooled);
    QVERIFY(pooled.isnan().any().item<bool>());
    QVERIFY(closeRelative(pooled, reference.pooled, 1e-6));
    const auto [gradWeight, gradBias] = backwardOnCpu<float>(layer, gradPooled, false);
    QVERIFY(gradWeight.isnan().any().item<bool>());
    QVERIFY(closeRelative(gradWeight, reference.gradWeight, 1e-5));
    QVERIFY(closeRelative(gradBias, reference.gradBias, 1e-5));
  }

  void reluPoolMatchesLibTorchBitForBit_data() {
    QTest::addColumn<bool>("bfloat16");
    QTest::addColumn<bool>("channelsLast");
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    QTest::newRow("fp32 NCHW 14x14") << false << false << 14 << 14;
    QTest::newRow("fp32 channels-last odd 7x9") << false << true << 7 << 9;
    QTest::newRow("bf16 NCHW odd 5x3") << true << false << 5 << 3;
    QTest::newRow("bf16 channels-last 8x8") << true << true << 8 << 8;
  }
  void reluPoolMatchesLibTorchBitForBit() {
    QFETCH(bool, bfloat16);
    QFETCH(bool, channelsLast);
    QFETCH(int, height);
    QFETCH(int, width);
    torch::manual_seed(12);
    const auto type = bfloat16 ? torch::kBFloat16 : torch::kFloat32;
    // Negative, zero, positive and NaN inputs: ReLU's edge cases, which decide the gradient.
    torch::Tensor values = torch::randn({3, 6, height, width});
    values.view(-1).index_put_({torch::arange(0, values.numel(), 7)}, 0.0);
    values.view(-1)[values.numel() / 2] = NAN;
    const torch::Tensor input = values.to(type).contiguous(layoutOf(channelsLast));
    const torch::Tensor plainInput = input.clone().requires_grad_(true);
    const torch::Tensor plain = torch::avg_pool2d(torch::relu(plainInput), 2);
    const torch::Tensor gradOutput = torch::randn(plain.sizes()).to(type);
    plain.backward(gradOutput);
    const auto [output, gradInput] = bfloat16 ? reluPoolOnCpu<c10::BFloat16>(input, gradOutput, channelsLast)
                                              : reluPoolOnCpu<float>(input, gradOutput, channelsLast);
    QVERIFY(torch::equal(output.isnan(), plain.isnan()));
    QVERIFY(torch::equal(output.nan_to_num(), plain.detach().nan_to_num()));
    QVERIFY(torch::equal(gradInput, plainInput.grad()));
    QVERIFY(output.is_contiguous(layoutOf(channelsLast)) && gradInput.is_contiguous(layoutOf(channelsLast)));
  }

  void groupedConvMatchesLibTorch_data() {
    addGroupedCaseColumns();
    QTest::newRow("the CNN's second layer, 2 members, 12 images 14x14: 2 chunks of pixels, 10 pixel tiles")
        << 12 << 2 << 32 << 64 << 14 << 14;
    QTest::newRow("70 channels (two tiles, the second of 6), 5 inputs (45 taps), 3 groups, odd 9x7")
        << 3 << 3 << 5 << 70 << 9 << 7;
    QTest::newRow("1x1 images: every tap but the centre is padding") << 5 << 2 << 8 << 16 << 1 << 1;
    QTest::newRow("one group, 2x3") << 2 << 1 << 3 << 4 << 2 << 3;
    // The weight gradient carries each thread's pixel 16 on per stage (PixelStepper): rows wider
    // than that wrap once or not at all, and the second chunk starts inside an image.
    QTest::newRow("23 images 5x19: rows wider than a stage, 2 chunks") << 23 << 1 << 3 << 4 << 5 << 19;
  }
  void groupedConvMatchesLibTorch() {
    const GroupedCase shape = fetchGroupedCase();
    const int64_t groups = shape.groups;
    const auto [in, weight, bias, gradOut] = randomGroupedOperands(shape);
    const GroupedReference reference = groupedReferenceOf(in, weight, bias, gradOut, groups);

    QVERIFY(closeRelative(groupedForwardOnCpu(in, weight, bias, groups), reference.out, 1e-6));
    const torch::Tensor gradInput =
        groupedForwardOnCpu(gradOut, groupedConvInputGradientWeight(weight, groups), torch::Tensor(), groups);
    QCOMPARE(gradInput.sizes().vec(), in.sizes().vec());
    QVERIFY(closeRelative(gradInput, reference.gradInput, 2e-6));  // float sums of 576 products
    QVERIFY(closeRelative(groupedWeightGradientOnCpu(in, gradOut, groups), reference.gradWeight, 1e-5));
  }

  void groupedConvOnTensorCoresMatchesLibTorch_data() {
    QTest::addColumn<bool>("bfloat16");
    addGroupedCaseColumns();
    for (const bool bfloat16 : {false, true}) {
      const char* type = bfloat16 ? "bf16" : "tf32";
      QTest::addRow("%s: the CNN's second layer, 1 member, 11 images 14x14 (2 chunks, 17 pixel tiles)", type)
          << bfloat16 << 11 << 1 << 32 << 64 << 14 << 14;
      QTest::addRow("%s: 70 channels (two tiles, the second of 6), 5 inputs (45 taps), 3 groups, 9x7", type)
          << bfloat16 << 3 << 3 << 5 << 70 << 9 << 7;
      QTest::addRow("%s: 32 inputs (a stage is one kernel position) on odd 5x7 images, 3 groups of 40", type)
          << bfloat16 << 4 << 3 << 32 << 40 << 5 << 7;
      QTest::addRow("%s: 1x1 images, 2 groups", type) << bfloat16 << 5 << 2 << 8 << 16 << 1 << 1;
      QTest::addRow("%s: one group, 2x3", type) << bfloat16 << 2 << 1 << 3 << 4 << 2 << 3;
      QTest::addRow("%s: 2 images 3x19, rows of 19 pixels against stages of 16 (tf32) or 32 (bf16)", type)
          << bfloat16 << 2 << 1 << 3 << 4 << 3 << 19;
    }
  }
  // The reference convolves the operands as a tensor core takes them (rounded to TF32 or
  // bf16), so what is left to compare is the kernels' indexing, their rounding to TF32 (they
  // are given unrounded floats) and their float sums: LibTorch in double, to float rounding
  // (bf16 outputs: to one rounding to bf16).
  void groupedConvOnTensorCoresMatchesLibTorch() {
    QFETCH(bool, bfloat16);
    const GroupedCase shape = fetchGroupedCase();
    const int64_t groups = shape.groups;
    const auto operandsOf = [&](const torch::Tensor& values) {
      return bfloat16 ? values.to(torch::kBFloat16).to(torch::kFloat32) : roundedToTf32(values);
    };
    const auto [in, weight, bias, gradOut] = randomGroupedOperands(shape);
    QVERIFY(bfloat16 || !torch::equal(operandsOf(in), in));  // the kernels have rounding to do
    const GroupedReference reference =
        groupedReferenceOf(operandsOf(in), operandsOf(weight), bias, operandsOf(gradOut), groups);
    // The input's gradient is the forward kernel on the output's gradient, as GroupedConv.cpp calls it.
    const torch::Tensor flipped = groupedConvInputGradientWeight(weight, groups);

    torch::Tensor out, gradInput, gradWeight;
    if (bfloat16) {
      using Element = c10::BFloat16;
      const auto asBf16 = [](const torch::Tensor& t) { return t.to(torch::kBFloat16); };
      out = tensorCoreForwardOnCpu<Element>(asBf16(in), asBf16(weight), bias, groups);
      gradInput = tensorCoreForwardOnCpu<Element>(asBf16(gradOut), asBf16(flipped), torch::Tensor(), groups);
      gradWeight = tensorCoreWeightGradientOnCpu<Element>(asBf16(in), asBf16(gradOut), groups);
      QCOMPARE(out.scalar_type(), torch::kBFloat16);
    } else {
      out = tensorCoreForwardOnCpu<float>(in, weight, bias, groups);
      gradInput = tensorCoreForwardOnCpu<float>(gradOut, flipped, torch::Tensor(), groups);
      gradWeight = tensorCoreWeightGradientOnCpu<float>(in, gradOut, groups);
    }
    const double outputTolerance = bfloat16 ? 1.0 / 128 : 1e-5;
    QCOMPARE(gradInput.sizes().vec(), in.sizes().vec());
    QVERIFY(closeRelative(out, reference.out, outputTolerance));
    QVERIFY(closeRelative(gradInput, reference.gradInput, outputTolerance));
    QVERIFY(closeRelative(gradWeight, reference.gradWeight, 1e-5));
  }

  void groupedConvOnMmaSyncMatchesLibTorch_data() {
    addGroupedCaseColumns();
    // Small: every lane of every warp meets the others at each product (WarpMmaOnCpu.h).
    QTest::newRow("the CNN's second layer, 1 member, 1 image 14x14: 2 pixel tiles, the second of 68")
        << 1 << 1 << 32 << 64 << 14 << 14;
    QTest::newRow("70 channels (two tiles, the second of 6), 5 inputs (45 taps), 2 groups, 9x7")
        << 2 << 2 << 5 << 70 << 9 << 7;
    QTest::newRow("48 inputs (stages of one kernel position) on odd 5x7 images: 2 pixel tiles, 24 channels")
        << 4 << 1 << 48 << 24 << 5 << 7;
    QTest::newRow("1x1 images: every tap but the centre is padding") << 5 << 2 << 8 << 16 << 1 << 1;
    QTest::newRow("one group, 2x3") << 2 << 1 << 3 << 4 << 2 << 3;
    QTest::newRow("rows wider than a stage's 16 pixels: 2 images 3x19") << 2 << 1 << 3 << 4 << 3 << 19;
  }
  // Three products of split operands against LibTorch in double on the float operands: fp32's
  // accuracy, where one TF32 product is an order of magnitude further off (the check that the
  // small terms are there); one product against the operands rounded to TF32 (the check of
  // its indexing and rounding). The input's gradient is the forward kernel with 32 output
  // channels where the layer has 64 in (the narrow tile); the weight's has its own kernel.
  void groupedConvOnMmaSyncMatchesLibTorch() {
    const GroupedCase shape = fetchGroupedCase();
    const int64_t groups = shape.groups;
    auto [in, weight, bias, gradOut] = randomGroupedOperands(shape);
    // CUDA's NaN, all mantissa bits set: splitting it carries into the sign (WarpMma.cuh), and
    // the outputs that see it must still be NaN (closeRelative compares where NaN lies).
    const uint32_t nanBits = 0x7fffffffu;
    float nan;
    std::memcpy(&nan, &nanBits, sizeof nan);
    in.index_put_({0, 0, shape.height / 2, shape.width / 2}, nan);
    const torch::Tensor flipped = groupedConvInputGradientWeight(weight, groups);
    const GroupedReference exact = groupedReferenceOf(in, weight, bias, gradOut, groups);

    const torch::Tensor out = mmaSyncForwardOnCpu<3>(in, weight, bias, groups);
    const torch::Tensor gradInput = mmaSyncForwardOnCpu<3>(gradOut, flipped, torch::Tensor(), groups);
    const torch::Tensor gradWeight = mmaSyncWeightGradientOnCpu<3>(in, gradOut, groups);
    QCOMPARE(gradInput.sizes().vec(), in.sizes().vec());
    QVERIFY(closeRelative(out, exact.out, 2e-6));
    QVERIFY(closeRelative(gradInput, exact.gradInput, 2e-6));
    QVERIFY(closeRelative(gradWeight, exact.gradWeight, 1e-5));  // as the fp32 kernel's

    const torch::Tensor outTf32 = mmaSyncForwardOnCpu<1>(in, weight, bias, groups);
    const torch::Tensor gradInputTf32 = mmaSyncForwardOnCpu<1>(gradOut, flipped, torch::Tensor(), groups);
    const torch::Tensor gradWeightTf32 = mmaSyncWeightGradientOnCpu<1>(in, gradOut, groups);
    QVERIFY2(relativeError(outTf32, exact.out) > 10 * relativeError(out, exact.out),
             "three products are no closer to fp32 than one");
    QVERIFY(relativeError(gradInputTf32, exact.gradInput) > 10 * relativeError(gradInput, exact.gradInput));
    QVERIFY(relativeError(gradWeightTf32, exact.gradWeight) > 10 * relativeError(gradWeight, exact.gradWeight));
    const torch::Tensor inRounded = torch::where(in.isnan(), in, roundedToTf32(in));  // cvt.rna keeps NaN
    const GroupedReference rounded = groupedReferenceOf(inRounded, roundedToTf32(weight), bias,
                                                        roundedToTf32(gradOut), groups);
    QVERIFY(closeRelative(outTf32, rounded.out, 1e-5));
    QVERIFY(closeRelative(gradInputTf32, rounded.gradInput, 1e-5));
    QVERIFY(closeRelative(gradWeightTf32, rounded.gradWeight, 1e-5));

    // The filters staged for 16-byte copies (ENSEMBLELAB_MMA_SYNC_WEIGHTS=staged): the same
    // products in the same order, so the same bits, in both arithmetics and both passes.
    QVERIFY2(sameBits(mmaSyncForwardOnCpu<3, true>(in, weight, bias, groups), out), "staged filters, fp32 forward");
    QVERIFY2(sameBits(mmaSyncForwardOnCpu<3, true>(gradOut, flipped, torch::Tensor(), groups), gradInput),
             "staged filters, fp32 input gradient");
    QVERIFY2(sameBits(mmaSyncForwardOnCpu<1, true>(in, weight, bias, groups), outTf32), "staged filters, TF32");
  }
};

QTEST_APPLESS_MAIN(TestCudaKernelsOnCpu)
#include "TestCudaKernelsOnCpu.moc"
