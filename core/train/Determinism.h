// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reproducible runs ("deterministic" in the config, --deterministic). On the CPU our
// kernels give the same numbers for the same seed whatever this setting says. On a GPU they
// do only when every kernel is deterministic: cuDNN's algorithms chosen for determinism
// (no benchmarking), cuBLAS with a fixed workspace, and LibTorch refusing any op whose CUDA
// kernel adds with atomics in a varying order. Off, cuDNN benchmarks and picks its fastest
// algorithm, and two runs of the same seed drift apart in the last digits.
#include <string>
#include <vector>

#include "core/devices/DeviceSpec.h"
#include "core/config/ExperimentConfig.h"

namespace ensemble {

struct ModelInput;

/// LibTorch's deterministic switches while it lives (process-wide, one scope per run on the
/// thread that drives it; the previous values come back with it): deterministic
/// algorithms, cuDNN deterministic with benchmarking off, and CUBLAS_WORKSPACE_CONFIG
/// (set unless the user set it) when `deterministic`; otherwise cuDNN may benchmark.
class DeterminismScope final {
 public:
  explicit DeterminismScope(bool deterministic);
  ~DeterminismScope();
  DeterminismScope(const DeterminismScope&) = delete;
  DeterminismScope& operator=(const DeterminismScope&) = delete;

 private:
  bool m_previousAlgorithms = false, m_previousWarnOnly = false;
  bool m_previousCudnnDeterministic = false, m_previousBenchmark = false;
  bool m_previousFill = true;
};

/// Whether the same seed gives the same numbers, and why not: empty when it does (a run
/// only on the CPU; a run on GPUs with `deterministic`), else one sentence naming the setting.
/// Reads the run's resolved devices (config.devices as config.json keeps them).
std::string whyNotReproducible(const ExperimentConfig& config);

/// Before a deterministic run writes anything: one training step of a throwaway model of
/// the run's kind on each kind of device the run uses (forward, loss, backward, update).
/// Throws ConfigError naming the first op that has no deterministic kernel there.
void checkDeterministicKernels(const ExperimentConfig& config, const ModelInput& input,
                               const std::vector<DeviceRef>& devices);

/// The op LibTorch names in its refusal to run a kernel that is not deterministic
/// ("adaptive_avg_pool2d_backward_cuda"), or empty when `message` is not that refusal.
std::string nondeterministicOpIn(const std::string& message);

}  // namespace ensemble
