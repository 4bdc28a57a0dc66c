// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How much host memory a CPU run will need, measured rather than guessed: one throwaway
// copy of the model trains a step at two small batch sizes while a thread-local reporter
// counts the CPU allocator's peak, and the line through them is extended to the run's
// batch. Used by the per-run memory budget, which refuses a run before it starts instead
// of letting the machine swap or the kernel kill it.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace ensemble {

struct ModelInput;

struct MemoryEstimate {
  std::uint64_t datasetBytes = 0;     ///< the uint8 images and labels, once per device
  std::uint64_t modelStateBytes = 0;  ///< one replica's weights, gradients and momentum
  std::uint64_t stepBytes = 0;        ///< one training step's activations and temporaries
  std::uint64_t evaluationBytes = 0;  ///< one evaluation batch, without gradients
  int replicas = 0;
  int concurrent = 1;  ///< replicas that step (or evaluate) at the same time
  /// false where the replicas' state alone was over the limit given: the steps were not
  /// measured (their bytes are 0), and the total is a lower bound.
  bool stepsMeasured = true;
  /// Replicas keep their state all run long; steps and evaluations come and go, at most
  /// `concurrent` of them at once.
  std::uint64_t totalBytes() const {
    return datasetBytes + modelStateBytes * std::uint64_t(replicas) +
           std::uint64_t(concurrent) * std::max(stepBytes, evaluationBytes);
  }
};

/// Measures `model` on `input` and scales to `batchPerReplica` and `evalBatch`, for
/// `replicas` of which `concurrent` run at once. Where the dataset and the replicas' state
/// alone come to more than `stopAbove`, it returns before measuring a step (which needs a
/// gradient of every weight more): a model too large for the machine is refused by its size,
/// not by running out of memory while it is measured.
MemoryEstimate estimateCpuMemory(const std::string& model, const ModelInput& input, int64_t batchPerReplica,
                                 int64_t evalBatch, int replicas, std::uint64_t datasetBytes, int concurrent = 1,
                                 std::uint64_t stopAbove = std::numeric_limits<std::uint64_t>::max());

/// "1.2 GiB", "350 MiB": sizes as a person reads them.
std::string formatBytes(std::uint64_t bytes);

}  // namespace ensemble
