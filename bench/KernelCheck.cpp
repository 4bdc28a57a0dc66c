// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-kernel-check: our fused kernels against the LibTorch ops they replace, on a
// real device, bit for bit (forward and backward). Qt Test does not build on the GPU
// machine, so this is how scripts/gpu-check.sh checks the CUDA kernels; CTest runs it on
// the CPU. Usage:
//   ensemble-lab-kernel-check [--device cpu|cuda|cuda:N]   (default: cuda when a GPU is
//                                                            visible, else cpu)
// Prints one line per case and a JSON summary; exits 1 when a case differs, 2 on bad
// arguments.
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  std::string deviceName = torch::cuda::is_available() ? "cuda" : "cpu";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      deviceName = argv[++i];
    } else {
      std::cerr << "usage: ensemble-lab-kernel-check [--device cpu|cuda|cuda:N]\n";
      return 2;
    }
  }
  torch::Device device(torch::kCPU);
  try {
    device = torch::Device(deviceName);
    if (device.is_cuda() && !torch::cuda::is_available()) throw std::runtime_error("no GPU is visible");
  } catch (const std::exception& e) {
    std::cerr << "ensemble-lab-kernel-check: cannot use device '" << deviceName << "': " << e.what() << "\n";
    return 2;
  }
  const std::vector<std::vector<int64_t>> shapes = {{40, 28, 28}, {40, 14, 14}, {40, 33, 21}, {40, 2, 3}, {1, 8, 8}};
  int failed = 0, passed = 0;
  for (const torch::ScalarType type : fusedTypes(device)) {
    for (const bool channelsLast : {false, true}) {
      for (const auto& shape : shapes) {
        const Case c{shape[0], shape[1], shape[2], channelsLast, type};
        const std::string name = std::string(c10::toString(type)) + (channelsLast ? " channels-last " : " NCHW ") +
                                 std::to_string(c.channels) + "x" + std::to_string(c.height) + "x" +
                                 std::to_string(c.width);
        std::string problem;
        try {
          problem = check(c, device);
        } catch (const std::exception& e) {
          problem = e.what();
        }
        std::cout << (problem.empty() ? "ok    " : "DIFF  ") << "relu+avgpool " << name
                  << (problem.empty() ? "" : ": " + problem) << "\n";
        (problem.empty() ? passed : failed) += 1;
      }
    }
  }
  std::cout << nlohmann::json{{"device", device.str()}, {"passed", passed}, {"failed", failed}}.dump() << std::endl;
  return failed == 0 ? 0 : 1;
}
