// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `ensemble-lab-cli devices --check`: before a long multi-device run, all-reduce across
// every GPU with NCCL (one GPU: that GPU alone) and across two CPU ranks with Gloo, check the
// sums, and time them the way nccl-tests' all_reduce_perf reports (algorithm and bus
// bandwidth). Torch-free header.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace ensemble {

/// One message size, timed over several all-reduces after a warm-up.
struct AllReduceSample {
  std::size_t bytes = 0;
  double seconds = 0;          ///< one all-reduce, the mean of the timed ones
  double algorithmGBps = 0;    ///< bytes / seconds
  double busGBps = 0;          ///< algorithm bandwidth x 2(n-1)/n: the links' load, as nccl-tests counts it
  bool correct = false;        ///< every rank's every element holds the expected result
};

struct AllReduceCheck {
  std::string backend;   ///< "nccl" or "gloo"
  std::string devices;   ///< "cuda:0,cuda:1", "cpu*2"
  int ranks = 0;
  std::vector<AllReduceSample> samples;
  std::string error;     ///< empty when every all-reduce ran; otherwise what failed, naming the device
  bool passed() const;
};

/// Reports what the check is doing now ("nccl all-reduce of 4 MiB on cuda:0,cuda:1"), so a
/// caller waiting with a timeout can say where it hung.
using CheckProgress = std::function<void(const std::string& stage)>;

/// NCCL all-reduces across the CUDA devices `gpus` in this process. Never throws: a
/// failure is the result's error.
AllReduceCheck checkNcclAllReduce(const std::vector<int>& gpus, const CheckProgress& progress);

/// Gloo all-reduces between two CPU ranks of this process (threads on loopback), where
/// processGroupsAvailable() (ProcessGroupCommunicator.h). Never throws.
AllReduceCheck checkGlooAllReduce(const CheckProgress& progress);

}  // namespace ensemble
