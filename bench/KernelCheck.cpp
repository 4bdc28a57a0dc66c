// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-kernel-check: our fused kernels against the LibTorch ops they replace, on a
// real device, forward and backward: the ReLU + pool bit for bit; the first layer
// (convolution + ReLU + pool) and, on a GPU, the stacked members' grouped convolution
// (GroupedConv.h, ENSEMBLELAB_STACKED_CONV=ours is set here) to float rounding, and the same
// bits on every run. Qt Test does not build on the GPU
// machine, so this is how scripts/gpu-check.sh checks the CUDA kernels; CTest runs it on
// the CPU. Usage:
//   ensemble-lab-kernel-check [--device cpu|cuda|cuda:N] [--small]
//     --device: default cuda when a GPU is visible, else cpu
//     --small: only the cases of a few images (odd shapes, partial tiles), for runs under
//              compute-sanitizer, which slows every kernel 10-100x (gpu-check step 1e)
// Prints one line per case and a JSON summary; exits 1 when a case differs, 2 on bad
// arguments.
#include <torch/torch.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/AutocastState.h"
#include "core/common/Environment.h"
#include "core/models/ConvReluPool.h"
#include "core/models/GroupedConv.h"
#include "core/models/ReluAvgPool.h"

namespace {

struct Case {
  int64_t channels, height, width;
  bool channelsLast;
  torch::ScalarType type;
};

/// Which element types a device's fused kernel covers (others take the unfused ops there).
std::vector<torch::ScalarType> fusedTypes(const torch::Device& device) {
  if (device.is_cpu()) return {torch::kFloat32};
  return {torch::kFloat32, torch::kBFloat16, torch::kFloat16};
}

/// Runs one case; returns what differs, or "" when fused and unfused agree bit for bit.
std::string check(const Case& c, const torch::Device& device) {
  const auto layout = c.channelsLast ? torch::MemoryFormat::ChannelsLast : torch::MemoryFormat::Contiguous;
  torch::manual_seed(3);
  // Negative, zero, positive and NaN inputs: relu's edge cases, which decide the gradient.
  torch::Tensor values = torch::randn({5, c.channels, c.height, c.width});
  values.view(-1).index_put_({torch::arange(0, values.numel(), 7)}, 0.0);
  values.view(-1)[values.numel() / 2] = std::nanf("");
  values = values.to(device, c.type);
  const torch::Tensor fusedInput = values.clone(layout).requires_grad_(true);
  const torch::Tensor plainInput = values.clone(layout).requires_grad_(true);
  const torch::Tensor fused = ensemble::reluAvgPool2x2(fusedInput);
  const torch::Tensor plain = torch::avg_pool2d(torch::relu(plainInput), 2);
  // The next layer's gradient in NCHW order whatever the layout (as flatten's backward gives it).
  const torch::Tensor gradOutput = torch::randn(plain.sizes()).to(device, c.type);
  fused.backward(gradOutput);
  plain.backward(gradOutput);
  if (fused.grad_fn()->name().find("ReluAvgPool2x2") == std::string::npos) {
    return "the fused kernel did not run (" + fused.grad_fn()->name() + ")";
  }
  if (fused.sizes() != plain.sizes()) return "output sizes differ";
  if (!torch::equal(torch::nan_to_num(fused), torch::nan_to_num(plain))) {
    return "forward differs by up to " + std::to_string((fused.nan_to_num() - plain.nan_to_num()).abs().max().item<double>());
  }
  if (!torch::equal(fused.isnan(), plain.isnan())) return "NaN propagates differently";
  if (!torch::equal(fusedInput.grad(), plainInput.grad())) {
    return "backward differs by up to " + std::to_string((fusedInput.grad() - plainInput.grad()).abs().max().item<double>());
  }
  if (!fused.is_contiguous(layout) || !fusedInput.grad().is_contiguous(layout)) return "the layout was not kept";
  return "";
}

/// |a - b| <= tolerance * max |b| (NaN nowhere): two summation orders of the same products.
std::string closeRelative(const char* what, const torch::Tensor& a, const torch::Tensor& b, double tolerance) {
  const torch::Tensor actual = a.to(torch::kFloat64).cpu(), expected = b.to(torch::kFloat64).cpu();
  const double scale = expected.abs().max().item<double>();
  const double error = (actual - expected).abs().max().item<double>();
  if (!(error <= tolerance * scale)) {
    return std::string(what) + " differs by up to " + std::to_string(error) + " against values up to " +
           std::to_string(scale) + " (" + std::to_string(tolerance) + " relative allowed)";
  }
  return "";
}

struct FirstLayerCase {
  int64_t images, channels, height, width;
  bool channelsLast;    // the weight's layout, which conv2d's output (and the fused one's) follows
  bool autocastBFloat16;  // on a GPU: the output in bf16 (computed in float)
};

/// The fused first layer (ConvReluPool.h) against conv2d + relu + avg_pool2d on the same
/// device in float (its output rounded to bf16 where the case is bf16 autocast), and against
/// itself run again (the same bits).
std::string checkFirstLayer(const FirstLayerCase& c, const torch::Device& device) {
  namespace F = torch::nn::functional;
  torch::manual_seed(4);
  const torch::Tensor images = torch::rand({c.images, 1, c.height, c.width}).to(device);
  torch::Tensor weight = (torch::randn({c.channels, 1, 3, 3}) * 0.5).to(device);
  if (c.channelsLast) {  // one input channel: only explicit strides make it channels-last
    weight = torch::empty_strided(weight.sizes(), {9, 1, 3, 1}, weight.options()).copy_(weight);
  }
  const torch::Tensor bias = (torch::randn({c.channels}) * 0.1).to(device);
  const bool autocast = c.autocastBFloat16 && device.is_cuda();
  struct Result {
    torch::Tensor output, gradWeight, gradBias;
    std::string node;  // the autograd node that made the output
  };
  const auto run = [&](bool fused) {
    const torch::Tensor w = weight.clone(torch::MemoryFormat::Preserve).requires_grad_(true);
    const torch::Tensor b = bias.clone().requires_grad_(true);
    ensemble::setAutocastDtype(true, torch::kBFloat16);
    ensemble::setAutocastEnabled(true, autocast && fused);
    torch::Tensor out =
        fused ? ensemble::convReluAvgPool2x2(images, w, b)
              : torch::avg_pool2d(torch::relu(F::conv2d(images, w, F::Conv2dFuncOptions().bias(b).padding(1))), 2);
    ensemble::setAutocastEnabled(true, false);
    // Under autocast the fused layer sums float images and filters in float and rounds only its
    // output to bf16. conv2d under autocast would round the images and filters to bf16 first,
    // which moves ReLU's edge for sums near zero: on an H200 (2026-11-28) that alone made the
    // gradients of 64 images differ by 2-3% of their largest value, a few hundred pixels a
    // channel switching sides. So the reference is the same float arithmetic, its output rounded
    // to bf16 as the fused layer's is; the gradients then differ by float summation order only.
    if (autocast && !fused) out = out.to(torch::kBFloat16);
    torch::manual_seed(6);
    out.backward(torch::randn(out.sizes()).to(device, out.scalar_type()));
    return Result{out.detach(), w.grad(), b.grad(), out.grad_fn()->name()};
  };
  const Result fused = run(true), again = run(true), plain = run(false);
  if (fused.node.find("ConvReluPool") == std::string::npos) return "the fused kernels did not run (" + fused.node + ")";
  // In bf16 the two outputs may round a float apart by one bf16 step (2^-8 of a value).
  const double forwardTolerance = autocast ? 1e-2 : 1e-5, gradientTolerance = 1e-4;
  for (const std::string& problem :
       {fused.output.sizes() == plain.output.sizes() ? std::string() : std::string("output sizes differ"),
        fused.output.scalar_type() == plain.output.scalar_type() ? std::string() : std::string("output types differ"),
        // (the CPU's loops give channels-last whatever the weight's layout)
        device.is_cpu() || fused.output.suggest_memory_format() == plain.output.suggest_memory_format()
            ? std::string()
            : std::string("layouts differ"),
        closeRelative("forward", fused.output, plain.output, forwardTolerance),
        closeRelative("weight gradient", fused.gradWeight, plain.gradWeight, gradientTolerance),
        closeRelative("bias gradient", fused.gradBias, plain.gradBias, gradientTolerance)}) {
    if (!problem.empty()) return problem;
  }
  if (!torch::equal(fused.output, again.output) || !torch::equal(fused.gradWeight, again.gradWeight) ||
      !torch::equal(fused.gradBias, again.gradBias)) {
    return "a second run gave other bits";
  }
  return "";
}

struct GroupedCase {
  int64_t images, groups, inChannels, outChannels, height, width;
};

/// Our grouped convolution in `arithmetic` ("fp32"; "tf32": TF32 allowed; "bf16": bf16
/// autocast) against LibTorch's conv2d in IEEE float (TF32 off), to that arithmetic's rounding,
/// and against itself run again.
std::string checkGroupedConv(const GroupedCase& c, const torch::Device& device, const std::string& arithmetic) {
  namespace F = torch::nn::functional;
  torch::manual_seed(9);
  const torch::Tensor in = torch::randn({c.images, c.groups * c.inChannels, c.height, c.width}).to(device);
  const torch::Tensor weight = (torch::randn({c.groups * c.outChannels, c.inChannels, 3, 3}) * 0.2).to(device);
  const torch::Tensor bias = torch::randn({c.groups * c.outChannels}).to(device);
  const bool tf32 = at::globalContext().allowTF32CuDNN();
  const bool bfloat16 = arithmetic == "bf16";
  const auto setArithmetic = [&](bool ours) {
    at::globalContext().setAllowTF32CuDNN(ours && arithmetic == "tf32");
    ensemble::setAutocastDtype(true, torch::kBFloat16);
    ensemble::setAutocastEnabled(true, ours && bfloat16);
  };
  const auto restore = [&] {
    at::globalContext().setAllowTF32CuDNN(tf32);
    ensemble::setAutocastEnabled(true, false);
  };
  struct Result {
    torch::Tensor output, gradInput, gradWeight, gradBias;
  };
  const auto run = [&](bool ours) {
    setArithmetic(ours);
    const torch::Tensor x = in.clone().requires_grad_(true), w = weight.clone().requires_grad_(true),
                        b = bias.clone().requires_grad_(true);
    const torch::Tensor out = ours ? ensemble::groupedConv3x3(x, w, b, c.groups)
                                   : F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).padding(1).groups(c.groups));
    ensemble::setAutocastEnabled(true, false);
    torch::manual_seed(10);
    out.backward(torch::randn(out.sizes()).to(device, out.scalar_type()));
    return Result{out.detach(), x.grad(), w.grad(), b.grad()};
  };
  setArithmetic(true);
  const bool runsOurs = ensemble::groupedConvRunsOurKernels(bfloat16 ? in.to(torch::kBFloat16) : in, weight, bias,
                                                            c.groups);
  restore();
  if (!runsOurs) return "our kernels would not run";
  Result ours, again, plain;
  try {
    ours = run(true);
    again = run(true);
    plain = run(false);
  } catch (...) {
    restore();
    throw;
  }
  restore();
  if (bfloat16 && ours.output.scalar_type() != torch::kBFloat16) return "the output is not bf16 under autocast";
  // fp32: float rounding; TF32 operands carry 11 significant bits, bf16 ones 8.
  const double forwardTolerance = bfloat16 ? 2e-2 : arithmetic == "tf32" ? 5e-3 : 1e-5;
  const double gradientTolerance = bfloat16 ? 2e-2 : arithmetic == "tf32" ? 5e-3 : 1e-4;
  for (const std::string& problem :
       {closeRelative("forward", ours.output, plain.output, forwardTolerance),
        closeRelative("input gradient", ours.gradInput, plain.gradInput, forwardTolerance),
        closeRelative("weight gradient", ours.gradWeight, plain.gradWeight, gradientTolerance),
        closeRelative("bias gradient", ours.gradBias, plain.gradBias, bfloat16 ? 2e-2 : 1e-4)}) {
    if (!problem.empty()) return problem;
  }
  if (!torch::equal(ours.output, again.output) || !torch::equal(ours.gradInput, again.gradInput) ||
      !torch::equal(ours.gradWeight, again.gradWeight)) {
    return "a second run gave other bits";
  }
  return "";
}

/// Runs one case and prints its line; counts it in `passed` or `failed`.
template <typename Check>
void record(const std::string& what, const std::string& name, const Check& check, int& passed, int& failed) {
  std::string problem;
  try {
    problem = check();
  } catch (const std::exception& e) {
    problem = e.what();
  }
  std::cout << (problem.empty() ? "ok    " : "DIFF  ") << what << " " << name << (problem.empty() ? "" : ": " + problem)
            << "\n";
  (problem.empty() ? passed : failed) += 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string deviceName = torch::cuda::is_available() ? "cuda" : "cpu";
  bool small = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      deviceName = argv[++i];
    } else if (std::strcmp(argv[i], "--small") == 0) {
      small = true;
    } else {
      std::cerr << "usage: ensemble-lab-kernel-check [--device cpu|cuda|cuda:N] [--small]\n";
      return 2;
    }
  }
  constexpr int64_t kSmallImages = 40;  // --small: cases of at most this many images
  torch::Device device(torch::kCPU);
  try {
    device = torch::Device(deviceName);
    if (device.is_cuda() && !torch::cuda::is_available()) throw std::runtime_error("no GPU is visible");
  } catch (const std::exception& e) {
    std::cerr << "ensemble-lab-kernel-check: cannot use device '" << deviceName << "': " << e.what() << "\n";
    return 2;
  }
  // Every reference in IEEE float: LibTorch's default leaves cuDNN's TF32 on, which would make
  // the unfused first layer's convolution a TF32 one (the grouped check switches it per case).
  at::globalContext().setAllowTF32CuDNN(false);
  const std::vector<std::vector<int64_t>> shapes = {{40, 28, 28}, {40, 14, 14}, {40, 33, 21}, {40, 2, 3}, {1, 8, 8}};
  int failed = 0, passed = 0;
  for (const torch::ScalarType type : fusedTypes(device)) {
    for (const bool channelsLast : {false, true}) {
      for (const auto& shape : shapes) {
        const Case c{shape[0], shape[1], shape[2], channelsLast, type};
        const std::string name = std::string(c10::toString(type)) + (channelsLast ? " channels-last " : " NCHW ") +
                                 std::to_string(c.channels) + "x" + std::to_string(c.height) + "x" +
                                 std::to_string(c.width);
        record("relu+avgpool", name, [&] { return check(c, device); }, passed, failed);
      }
    }
  }
  // The first layer: the stacked ensemble of 8 (256 channels, NCHW), the single model
  // (channels-last), odd and tiny images; bf16 autocast on a GPU. Channels are multiples of 8,
  // which the CPU's loops need.
  const std::vector<FirstLayerCase> firstLayerCases = {
      {128, 256, 28, 28, false, false}, {128, 32, 28, 28, true, false}, {37, 16, 7, 9, false, false},
      {37, 16, 9, 7, true, false},      {3, 8, 2, 3, false, false},      {64, 256, 28, 28, false, true},
      {64, 32, 28, 28, true, true},     {37, 16, 9, 7, true, true}};
  for (const FirstLayerCase& c : firstLayerCases) {
    if ((c.autocastBFloat16 && !device.is_cuda()) || (small && c.images > kSmallImages)) continue;
    const std::string name = std::string(c.autocastBFloat16 ? "bf16 autocast" : "fp32") +
                             (c.channelsLast ? " channels-last " : " NCHW ") + std::to_string(c.images) + " images, " +
                             std::to_string(c.channels) + " channels, " + std::to_string(c.height) + "x" +
                             std::to_string(c.width);
    record("conv+relu+avgpool", name, [&] { return checkFirstLayer(c, device); }, passed, failed);
  }
  // The grouped convolution (GPU only): the stacked CNN's second layer for 8 and 16 members,
  // the same for 6 images (whole-position stages, in --small too), and odd ones (partial tiles
  // of pixels, channels and taps).
  // Ours, unless the caller asked for a form of them: gpu-check's step 1f runs the check again
  // with ENSEMBLELAB_STACKED_CONV=ours-mma-sync.
  bool onMmaSync = false;
  try {
    onMmaSync = ensemble::askForOurGroupedConvKernels() == ensemble::GroupedConvKernels::OursOnMmaSync;
  } catch (const std::exception& e) {
    std::cerr << "ensemble-lab-kernel-check: " << e.what() << "\n";
    return 2;
  }
  const std::vector<GroupedCase> groupedCases = {{128, 8, 32, 64, 14, 14},
                                                 {128, 16, 32, 64, 14, 14},
                                                 {6, 2, 32, 64, 14, 14},
                                                 {37, 3, 5, 70, 9, 7},
                                                 {4, 2, 8, 16, 1, 1}};
  for (const std::string arithmetic : {"fp32", "tf32", "bf16"}) {
    if (onMmaSync && arithmetic == "bf16") continue;  // the same kernels as "ours"
    for (const GroupedCase& c : groupedCases) {
      if (!device.is_cuda()) break;
      if (small && c.images > kSmallImages) continue;
      const std::string name = std::to_string(c.images) + " images, " + std::to_string(c.groups) + " groups of " +
                               std::to_string(c.inChannels) + " -> " + std::to_string(c.outChannels) + " channels, " +
                               std::to_string(c.height) + "x" + std::to_string(c.width);
      const std::string what = "grouped conv3x3 " + arithmetic + (onMmaSync ? " on mma.sync" : "");
      record(what, name, [&] { return checkGroupedConv(c, device, arithmetic); }, passed, failed);
    }
  }
  std::cout << nlohmann::json{{"device", device.str()}, {"passed", passed}, {"failed", failed}}.dump() << std::endl;
  return failed == 0 ? 0 : 1;
}
