// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/comm/AllReduceCheck.h"

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/comm/NcclCommunicator.h"
#include "core/common/ErrorMessage.h"

#ifdef ENSEMBLELAB_WITH_GLOO
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

namespace ensemble {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kWarmup = 2;
constexpr int kTimed = 10;

std::string sizeText(std::size_t bytes) {
  if (bytes >= (1u << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

AllReduceSample sampleOf(std::size_t bytes, double seconds, int ranks, bool correct) {
  AllReduceSample sample;
  sample.bytes = bytes;
  sample.seconds = seconds;
  sample.algorithmGBps = seconds > 0 ? double(bytes) / seconds / 1e9 : 0;
  sample.busGBps = sample.algorithmGBps * 2.0 * double(ranks - 1) / double(ranks);
  sample.correct = correct;
  return sample;
}

}  // namespace

bool AllReduceCheck::passed() const {
  if (!error.empty() || samples.empty()) return false;
  for (const AllReduceSample& sample : samples) {
    if (!sample.correct) return false;
  }
  return true;
}

AllReduceCheck checkNcclAllReduce(const std::vector<int>& gpus, const CheckProgress& progress) {
  AllReduceCheck check;
  check.backend = "nccl";
  check.ranks = int(gpus.size());
  std::vector<std::string> devices;  // "cuda:N", as torch::Device reads it
  for (const int gpu : gpus) {
    devices.push_back("cuda:" + std::to_string(gpu));
    check.devices += (check.devices.empty() ? "" : ",") + devices.back();
  }
  std::string stage = "connect NCCL on " + check.devices;
  try {
    progress(stage);
    const auto communicator = makeNcclCommunicator(gpus, /*timeoutSeconds=*/60);
    for (const std::size_t bytes : {std::size_t(4) << 10, std::size_t(256) << 10, std::size_t(4) << 20,
                                    std::size_t(64) << 20}) {
      stage = "nccl all-reduce of " + sizeText(bytes) + " on " + check.devices;
      progress(stage);
      const int64_t count = int64_t(bytes / sizeof(float));
      std::vector<torch::Tensor> buffers;
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        buffers.push_back(torch::full({count}, float(i + 1), torch::TensorOptions().device(devices[i])));
      }
      const auto synchronize = [&] {
        for (const int gpu : gpus) torch::cuda::synchronize(gpu);
      };
      for (int i = 0; i < kWarmup; ++i) communicator->allReduceMean(buffers);
      synchronize();
      // The mean of 1..n stays (n+1)/2 however often it is taken.
      for (std::size_t i = 0; i < gpus.size(); ++i) buffers[i].fill_(float(i + 1));
      const auto start = Clock::now();
      for (int i = 0; i < kTimed; ++i) communicator->allReduceMean(buffers);
      synchronize();
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count() / kTimed;
      const float expected = float(gpus.size() + 1) / 2.0f;
      bool correct = true;
      for (std::size_t i = 0; i < gpus.size(); ++i) {
        if (!buffers[i].eq(expected).all().item<bool>()) {
          correct = false;
          check.error = devices[i] + " holds a wrong all-reduce result for " + sizeText(bytes);
        }
      }
      check.samples.push_back(sampleOf(bytes, seconds, check.ranks, correct));
    }
  } catch (...) {
    check.error = stage + " failed: " + describeCurrentException();
  }
  return check;
}

#ifdef ENSEMBLELAB_WITH_GLOO

namespace {

/// Runs rank(1) on a thread of its own and rank(0) on this one (a Gloo rank waits for its
/// peer), then rethrows the first failure of either.
void runTwoRanks(const std::function<void(int)>& rank) {
  std::exception_ptr failure[2];
  std::thread other([&] {
    try {
      rank(1);
    } catch (...) {
      failure[1] = std::current_exception();
    }
  });
  try {
    rank(0);
  } catch (...) {
    failure[0] = std::current_exception();
  }
  other.join();
  for (const auto& error : failure) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace

AllReduceCheck checkGlooAllReduce(const CheckProgress& progress) {
  AllReduceCheck check;
  check.backend = "gloo";
  check.ranks = 2;
  check.devices = "cpu*2";
  std::string stage = "connect Gloo between two CPU ranks on loopback";
  try {
    progress(stage);
    auto store = c10::make_intrusive<c10d::HashStore>();
    const auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::milliseconds(60000));
    options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    std::vector<c10::intrusive_ptr<c10d::ProcessGroupGloo>> groups(2);
    runTwoRanks([&](int r) { groups[std::size_t(r)] = c10::make_intrusive<c10d::ProcessGroupGloo>(store, r, 2, options); });
    for (const std::size_t bytes : {std::size_t(4) << 10, std::size_t(256) << 10, std::size_t(4) << 20}) {
      stage = "gloo all-reduce of " + sizeText(bytes) + " between two CPU ranks";
      progress(stage);
      const int64_t count = int64_t(bytes / sizeof(float));
      double seconds = 0;
      std::atomic<bool> correct{true};
      const auto rank = [&](int r) {
        for (int i = 0; i < kWarmup + kTimed; ++i) {
          std::vector<at::Tensor> buffer{torch::full({count}, float(r + 1))};
          const auto start = Clock::now();
          groups[std::size_t(r)]->allreduce(buffer)->wait();
          if (r == 0 && i >= kWarmup) seconds += std::chrono::duration<double>(Clock::now() - start).count();
          if (!buffer[0].eq(3.0f).all().item<bool>()) correct = false;  // 1 + 2, summed
        }
      };
      runTwoRanks(rank);
      check.samples.push_back(sampleOf(bytes, seconds / kTimed, check.ranks, correct));
      if (!correct) check.error = "the CPU ranks hold a wrong all-reduce result for " + sizeText(bytes);
    }
  } catch (...) {
    check.error = stage + " failed: " + describeCurrentException();
  }
  return check;
}

#else

AllReduceCheck checkGlooAllReduce(const CheckProgress&) {
  AllReduceCheck check;
  check.backend = "gloo";
  check.devices = "cpu*2";
  check.error = "this build has no Gloo process group (Gloo's headers were missing when it was built)";
  return check;
}

#endif

}  // namespace ensemble
