// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Determinism.h"

#include <ATen/Context.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/models/Classifier.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"

namespace ensemble {
namespace {

// LibTorch 2.1 added filling fresh tensors with NaN under deterministic algorithms (so a
// kernel that reads memory it never wrote shows); ours write what they read, and the fill
// costs every allocation a pass over memory.
#if TORCH_VERSION_MAJOR >= 2 && (TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 1)
#define ENSEMBLELAB_HAS_DETERMINISTIC_FILL 1
#endif

/// cuBLAS's deterministic workspace setting, as CUDA's documentation gives it.
constexpr char kDeterministicCublasWorkspace[] = ":4096:8";

}  // namespace

DeterminismScope::DeterminismScope(bool deterministic) {
  auto& context = at::globalContext();
  m_previousAlgorithms = context.deterministicAlgorithms();
  m_previousWarnOnly = context.deterministicAlgorithmsWarnOnly();
  m_previousCudnnDeterministic = context.deterministicCuDNN();
  m_previousBenchmark = context.benchmarkCuDNN();
#ifdef ENSEMBLELAB_HAS_DETERMINISTIC_FILL
  m_previousFill = context.deterministicFillUninitializedMemory();
  context.setDeterministicFillUninitializedMemory(false);
#endif
  // cuBLAS reads it when it makes a handle; LibTorch checks it before each product.
  if (deterministic) environment::setDefault(environment::kCublasWorkspaceConfig, kDeterministicCublasWorkspace);
  context.setDeterministicAlgorithms(deterministic, /*warn_only=*/false);
  context.setDeterministicCuDNN(deterministic);
  // Benchmarking times several algorithms on the first batch of each shape and keeps the
  // fastest, which may differ from run to run.
  context.setBenchmarkCuDNN(!deterministic);
}

DeterminismScope::~DeterminismScope() {
  auto& context = at::globalContext();
  context.setDeterministicAlgorithms(m_previousAlgorithms, m_previousWarnOnly);
  context.setDeterministicCuDNN(m_previousCudnnDeterministic);
  context.setBenchmarkCuDNN(m_previousBenchmark);
#ifdef ENSEMBLELAB_HAS_DETERMINISTIC_FILL
  context.setDeterministicFillUninitializedMemory(m_previousFill);
#endif
}

std::string whyNotReproducible(const ExperimentConfig& config) {
  if (!namesCudaDevice(config.devices) || config.deterministic) return {};
  return "not reproducible: " + mention::field("deterministic") +
         " is off, so cuDNN and cuBLAS may pick other kernels and add in another order each time; "
         "the same seed gives close but not identical numbers";
}

std::string nondeterministicOpIn(const std::string& message) {
  // LibTorch: "<op> does not have a deterministic implementation, but you set
  // 'torch.use_deterministic_algorithms(True)'..."
  const std::string refusal = " does not have a deterministic implementation";
  const std::size_t end = message.find(refusal);
  if (end == std::string::npos) return {};
  // The op's name runs back from there to a space, a colon or the message's start.
  const std::size_t separator = end == 0 ? std::string::npos : message.find_last_of(" \n:", end - 1);
  const std::size_t start = separator == std::string::npos ? 0 : separator + 1;
  return message.substr(start, end - start);
}

void checkDeterministicKernels(const ExperimentConfig& config, const ModelInput& input,
                               const std::vector<DeviceRef>& devices) {
  if (!config.deterministic) return;
  std::vector<DeviceRef> kinds;  // one device of each kind: every GPU of a kind runs the same kernels
  for (const DeviceRef& device : devices) {
    const bool seen = std::any_of(kinds.begin(), kinds.end(), [&](const DeviceRef& d) { return d.kind == device.kind; });
    if (!seen) kinds.push_back(device);
  }
  const DeterminismScope deterministic(true);
  const Tf32Scope tf32(config.precision);
  for (const DeviceRef& device : kinds) {
    try {
      Replica probe = makeReplica(modelName(config.model), input, device, /*seed=*/0, config.learningRate, config.momentum,
                                  config.weightDecay);
      const AutocastScope autocast(config.precision, device.isCuda());
      const auto options = torch::TensorOptions().device(probe.device);
      const torch::Tensor images = torch::rand({2, input.channels, input.height, input.width}, options);
      const torch::Tensor labels = torch::zeros({2}, options.dtype(torch::kInt64));
      probe.optimizer->clearGradients();
      backwardOutsideCpuAutocast(
          torch::nn::functional::cross_entropy(probe.model->forward(images).to(torch::kFloat32), labels));
      probe.optimizer->step();
      torch::softmax(probe.model->forward(images), 1);
    } catch (const c10::Error& error) {
      const std::string op = nondeterministicOpIn(error.what_without_backtrace());
      if (op.empty()) throw;
      throw ConfigError(modelName(config.model) + " on " + device.str() + " uses " + op +
                            ", which has no deterministic kernel in this LibTorch; turn off " +
                            mention::field("deterministic") + " to train it (runs are then not reproducible), "
                            "or choose another " + mention::field("model"),
                        "deterministic");
    }
  }
}

}  // namespace ensemble
