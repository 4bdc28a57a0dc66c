// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A dataset split copied once to each device that trains or evaluates on it: the replicas
// of one device share the copy (uint8 images, a quarter of float storage).
#include <torch/types.h>

#include <map>
#include <string>

namespace ensemble {

struct Dataset;

struct SplitCopy {
  torch::Tensor images;  ///< uint8 [N, C, H, W]
  torch::Tensor labels;  ///< int64 [N]
};

class SplitOnDevices final {
 public:
  /// `split` must outlive this object.
  explicit SplitOnDevices(const Dataset& split) : m_split(split) {}

  /// The split on `device`, copied there on first use.
  const SplitCopy& on(const torch::Device& device);

 private:
  const Dataset& m_split;
  std::map<std::string, SplitCopy> m_copies;
};

}  // namespace ensemble
