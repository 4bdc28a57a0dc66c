// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliDevices.h"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "core/comm/AllReduceCheck.h"
#include "core/comm/NcclCommunicator.h"
#include "core/comm/ProcessGroupCommunicator.h"
#include "core/common/Error.h"
#include "core/devices/DeviceInventory.h"

namespace ensemble::cli {
namespace {

constexpr double kDefaultCheckTimeoutSeconds = 120;

void listDeviceTable() {
  std::printf("%-6s %-8s %-44s %s\n", "index", "device", "name", "memory");
  for (const auto& device : listDevices()) {
    const std::string index = device.id == "cpu" ? "-" : device.id.substr(5);
    std::string name = device.name;
    if (device.cores > 0) name += " (" + std::to_string(device.cores) + " cores)";
    if (device.computeMajor > 0) name += " (sm" + std::to_string(device.computeMajor * 10 + device.computeMinor) + ")";
    std::printf("%-6s %-8s %-44s %.1f GiB\n", index.c_str(), device.id.c_str(), name.c_str(),
                double(device.memoryBytes) / double(1ull << 30));
  }
  if (const std::string why = whyNoCudaDevice(); !why.empty()) std::printf("no CUDA device: %s\n", why.c_str());
}

/// One check's table, in all_reduce_perf's columns.
void printCheck(const AllReduceCheck& check) {
  std::printf("\n# all-reduce check: %s across %s (%d ranks)\n", check.backend.c_str(), check.devices.c_str(),
              check.ranks);
  std::printf("#%11s %12s %6s %6s %10s %12s %12s %8s\n", "size(B)", "count(elems)", "type", "redop", "time(us)",
              "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  for (const AllReduceSample& sample : check.samples) {
    std::printf(" %11zu %12zu %6s %6s %10.1f %12.2f %12.2f %8s\n", sample.bytes, sample.bytes / sizeof(float),
                "float", check.backend == "nccl" ? "avg" : "sum", sample.seconds * 1e6, sample.algorithmGBps,
                sample.busGBps, sample.correct ? "0" : "WRONG");
  }
  std::printf("# %s: %s\n", check.devices.c_str(), check.passed() ? "ok" : ("FAILED: " + check.error).c_str());
}

/// Every check this machine allows, one after another; the stage in progress is kept
/// under `mutex` for the watchdog.
bool runChecks(std::mutex& mutex, std::string& stage) {
  const CheckProgress progress = [&](const std::string& now) {
    std::lock_guard<std::mutex> lock(mutex);
    stage = now;
  };
  bool passed = true;
  std::vector<int> gpus;
  for (int i = 0; i < cudaDeviceCount(); ++i) gpus.push_back(i);
  if (!gpus.empty()) {
    if (ncclAvailable()) {
      const AllReduceCheck check = checkNcclAllReduce(gpus, progress);
      printCheck(check);
      passed = passed && check.passed();
    } else {
      std::printf("\n# no NCCL in this build: GPUs not checked (docs/GPU.md says how to build with it)\n");
    }
  }
  if (processGroupsAvailable()) {
    const AllReduceCheck check = checkGlooAllReduce(progress);
    printCheck(check);
    passed = passed && check.passed();
  } else {
    std::printf("\n# no Gloo in this build: the CPU ranks not checked (install libgloo-dev and rebuild)\n");
  }
  std::fflush(stdout);
  return passed;
}

double timeoutOf(const CliOptions& options) {
  if (!options.has("timeout")) return kDefaultCheckTimeoutSeconds;
  const double seconds = parseNumber(options, "timeout");
  if (!(seconds > 0)) throw ConfigError("--timeout takes a positive number of seconds, got '" + options.value("timeout") + "'");
  return seconds;
}

/// What to do when check `stage` outlasts --timeout: a GPU's state is nvidia-smi's to show;
/// the CPU ranks' check (a second on an idle machine) is only ever slow.
std::string adviceOnTimeout(const std::string& stage) {
  if (stage.find("NCCL") != std::string::npos || stage.find("nccl") != std::string::npos) {
    return "that GPU is busy or has failed (nvidia-smi shows its state); raise --timeout if it is only slow";
  }
  return "the check takes about a second on an idle machine: raise --timeout if this one is busy";
}

}  // namespace

int commandDevices(const CliOptions& options) {
  // A flag that does nothing without another is a usage mistake (exit 2), as an unknown one is.
  if (options.has("timeout") && !options.has("check")) {
    throw UsageError("--timeout only goes with --check (devices --check --timeout S); add --check, or drop --timeout");
  }
  listDeviceTable();
  if (!options.has("check")) return 0;
  const double timeout = timeoutOf(options);
  // A GPU that hangs never returns from NCCL; the checks run on a thread of their own and
  // this one gives up on them at the timeout, naming what they were doing.
  std::mutex mutex;
  std::condition_variable finished;
  std::string stage = "start";
  bool done = false, passed = false;
  std::thread checks([&] {
    const bool ok = runChecks(mutex, stage);
    std::lock_guard<std::mutex> lock(mutex);
    passed = ok;
    done = true;
    finished.notify_all();
  });
  std::unique_lock<std::mutex> lock(mutex);
  if (!finished.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return done; })) {
    std::fprintf(stderr, "ensemble-lab-cli: devices --check: %s did not finish within %g s; %s\n", stage.c_str(),
                 timeout, adviceOnTimeout(stage).c_str());
    std::fflush(stdout);
    std::_Exit(1);  // the stuck thread cannot be stopped, only left behind
  }
  lock.unlock();
  checks.join();
  if (!passed) std::fprintf(stderr, "ensemble-lab-cli: devices --check: a check failed (see above)\n");
  return passed ? 0 : 1;
}

}  // namespace ensemble::cli
