#pragma once
// How much host memory a CPU run will need, measured rather than guessed: one throwaway
// copy of the model trains a step at two small batch sizes while a thread-local reporter
// counts the CPU allocator's peak, and the line through them is extended to the run's
// batch. Used by the per-run memory budget, which refuses a run before it starts instead
// of letting the machine swap or the kernel kill it.
#include <algorithm>
#include <cstdint>
#include <string>

namespace ensemble {

struct ModelInput;

struct MemoryEstimate {
  std::uint64_t datasetBytes = 0;     ///< the uint8 images and labels, once per device
  std::uint64_t modelStateBytes = 0;  ///< one replica's weights, gradients and momentum
  std::uint64_t stepBytes = 0;        ///< one training step's activations and temporaries
  std::uint64_t evaluationBytes = 0;  ///< one evaluation batch, without gradients
  int replicas = 0;
  /// Replicas keep their state all run long; the steps of a process's replicas and its
  /// evaluations run one at a time, so only the largest of those is live at once.
  std::uint64_t totalBytes() const {
    return datasetBytes + modelStateBytes * std::uint64_t(replicas) + std::max(stepBytes, evaluationBytes);
  }
};

/// Measures `model` on `input` and scales to `batchPerReplica` and `evalBatch`.
MemoryEstimate estimateCpuMemory(const std::string& model, const ModelInput& input, int64_t batchPerReplica,
                                 int64_t evalBatch, int replicas, std::uint64_t datasetBytes);

/// "1.2 GiB", "350 MiB": sizes as a person reads them.
std::string formatBytes(std::uint64_t bytes);

}  // namespace ensemble
