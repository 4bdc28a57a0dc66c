// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/MemoryEstimate.h"

#include <c10/core/Allocator.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>

#include "core/models/Classifier.h"
#include "core/models/ModelRegistry.h"

namespace ensemble {
namespace {

/// Counts this thread's CPU allocations while installed (LibTorch reports every CPU
/// allocation and free to the thread's profiler-state reporter when it asks for them).
class AllocationPeak final : public c10::MemoryReportingInfoBase {
 public:
  // LibTorch 1.13 passes the totals as int64_t, 2.x as size_t: both overloads are here,
  // whichever the installed version declares is the override.
  void reportMemoryUsage(void*, int64_t size, int64_t, int64_t, c10::Device device) { record(size, device); }
  void reportMemoryUsage(void*, int64_t size, size_t, size_t, c10::Device device) { record(size, device); }
  bool memoryProfilingEnabled() const override { return true; }

  void resetPeak() { m_peak = m_current; }
  int64_t peakAbove(int64_t base) const { return std::max<int64_t>(0, m_peak - base); }
  int64_t current() const { return m_current; }

 private:
  void record(int64_t size, c10::Device device) {
    if (!device.is_cpu()) return;
    m_current += size;
    m_peak = std::max(m_peak, m_current);
  }
  int64_t m_current = 0;
  int64_t m_peak = 0;
};

/// Peak bytes of one training step (forward, loss, backward, momentum update) at `batch`.
int64_t trainingStepPeak(ClassifierImpl& model, const ModelInput& input, int64_t batch, AllocationPeak& counter) {
  const int64_t base = counter.current();
  counter.resetPeak();
  {
    const torch::Tensor images = torch::rand({batch, input.channels, input.height, input.width});
    const torch::Tensor labels = torch::zeros({batch}, torch::kInt64);
    const torch::Tensor loss = torch::nn::functional::cross_entropy(model.forward(images), labels);
    loss.backward();
    torch::NoGradGuard noGrad;
    for (auto& parameter : model.parameters()) {
      parameter.sub_(parameter.grad() * 0.0);  // the update's temporaries
    }
  }
  return counter.peakAbove(base);
}

int64_t evaluationPeak(ClassifierImpl& model, const ModelInput& input, int64_t batch, AllocationPeak& counter) {
  const int64_t base = counter.current();
  counter.resetPeak();
  {
    torch::NoGradGuard noGrad;
    const torch::Tensor images = torch::rand({batch, input.channels, input.height, input.width});
    torch::softmax(model.forward(images), 1);
  }
  return counter.peakAbove(base);
}

/// The cost at `target` on the line through two measured points (never below either).
std::uint64_t extend(int64_t atSmall, int64_t atLarge, int64_t small, int64_t large, int64_t target) {
  const double perSample = double(std::max<int64_t>(0, atLarge - atSmall)) / double(large - small);
  const double value = double(atLarge) + perSample * double(target - large);
  return std::uint64_t(std::max({value, double(atSmall), double(atLarge)}));
}

}  // namespace

MemoryEstimate estimateCpuMemory(const std::string& modelName, const ModelInput& input, int64_t batchPerReplica,
                                 int64_t evalBatch, int replicas, std::uint64_t datasetBytes, int concurrent,
                                 std::uint64_t stopAbove) {
  MemoryEstimate estimate;
  estimate.datasetBytes = datasetBytes;
  estimate.replicas = replicas;
  estimate.concurrent = std::max(1, std::min(concurrent, replicas));
  auto counter = std::make_shared<AllocationPeak>();
  c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, counter);
  const int64_t before = counter->current();
  auto model = makeModel(modelName, input);
  model->train();
  // Weights as built, plus gradients and momentum buffers of the same size.
  const int64_t weights = counter->current() - before;
  estimate.modelStateBytes = std::uint64_t(3 * weights);
  if (estimate.totalBytes() > stopAbove) {
    estimate.stepsMeasured = false;
    return estimate;
  }
  constexpr int64_t kSmall = 2, kLarge = 8;
  trainingStepPeak(*model, input, kSmall, *counter);  // allocates the gradients, which persist
  const int64_t stepSmall = trainingStepPeak(*model, input, kSmall, *counter);
  const int64_t stepLarge = trainingStepPeak(*model, input, kLarge, *counter);
  estimate.stepBytes = extend(stepSmall, stepLarge, kSmall, kLarge, batchPerReplica);
  model->eval();
  const int64_t evalSmall = evaluationPeak(*model, input, kSmall, *counter);
  const int64_t evalLarge = evaluationPeak(*model, input, kLarge, *counter);
  estimate.evaluationBytes = extend(evalSmall, evalLarge, kSmall, kLarge, evalBatch);
  return estimate;
}

std::string formatBytes(std::uint64_t bytes) {
  char text[32];
  const double mib = double(bytes) / double(1 << 20);
  if (mib >= 1024) {
    std::snprintf(text, sizeof text, "%.1f GiB", mib / 1024);
  } else {
    std::snprintf(text, sizeof text, "%.0f MiB", mib);
  }
  return text;
}

}  // namespace ensemble
