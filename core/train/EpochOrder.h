// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order in which an epoch visits the training split, on every device that trains: the
// permutation is copied to each device once per epoch, and a step's batch indices are a
// slice of that copy. Copying each step's indices from pageable host memory made the host
// wait until the GPU was idle, every step (profiled on an H100: issue 29); now nothing in a
// step waits for the device. On the CPU the "copy" is the permutation itself.
#include <torch/types.h>

#include <map>
#include <string>
#include <vector>

namespace ensemble {

class EpochOrder final {
 public:
  /// `permutation`: positions in the training split (EpochSampler::permutation); copied to
  /// each of `devices` now, from pinned memory and without waiting when a device is a GPU.
  EpochOrder(const std::vector<int64_t>& permutation, const std::vector<torch::Device>& devices);

  /// An order held in `positions` (int64, on its device) itself, not a copy: a step captured
  /// in a CUDA graph reads its batch from this one buffer (CudaGraphStep.h).
  static EpochOrder inBuffer(const torch::Tensor& positions);

  /// Positions [begin, begin + count) of the order, int64 on `device` (one of the
  /// constructor's devices). Safe to call from several threads at once.
  torch::Tensor slice(const torch::Device& device, int64_t begin, int64_t count) const;

 private:
  EpochOrder() = default;

  std::map<std::string, torch::Tensor> m_copies;  ///< by Device::str()
};

}  // namespace ensemble
