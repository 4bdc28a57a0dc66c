// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-bench: times EnsembleLab's engine on one workload and prints one JSON line.
// Training throughput counts the steps after a warm-up, from the engine's own step clock;
// evaluation throughput times Trainer::evaluate() on the test images. bench/run_bench.py
// runs it side by side with the PyTorch and Flax peers (bench/peer.py, bench/flax_peer.py).
#include <sys/resource.h>
#include <unistd.h>

#include <ATen/Context.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/config/RunMode.h"
#include "core/common/Error.h"
#include "core/common/NumberText.h"
#include "core/devices/DeviceInventory.h"
#include "core/devices/DeviceSpec.h"
#include "core/io/RemoveTree.h"
#include "core/io/RunDirectory.h"
#include "core/config/ConfigFields.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/RunAnalysis.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingObserver.h"

namespace {

/// Training seconds (the engine's clock) at the end of the warm-up and at the last step.
class StepClock final : public ensemble::TrainingObserver {
 public:
  explicit StepClock(int64_t warmup) : m_warmup(warmup) {}
  void onStep(const ensemble::StepEvent& event) override {
    if (event.globalStep == m_warmup) warmupSeconds = event.elapsedSeconds;
    lastSeconds = event.elapsedSeconds;
    lastStep = event.globalStep;
  }
  double warmupSeconds = 0, lastSeconds = 0;
  int64_t lastStep = 0;

 private:
  int64_t m_warmup;
};

std::string loadedBlas() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libblas") != std::string::npos || line.find("libopenblas") != std::string::npos) {
      return line.substr(line.find('/'));
    }
  }
  // The PyPI wheels link MKL into libtorch_cpu: no BLAS library of its own is mapped.
  return at::hasMKL() ? "MKL, linked into libtorch_cpu" : "none";
}

/// A message with its settings named as flags ("{{precision}}" reads "--precision").
std::string inFlags(const std::string& message) {
  return ensemble::phraseMessage(message, ensemble::FieldNaming::Flags);
}

/// The value of --`name` (or `fallback`) as an integer; ConfigError naming the flag otherwise.
int64_t integerArgument(const nlohmann::json& args, const std::string& name, const std::string& fallback) {
  const std::string text = args.value(name, fallback);
  if (const auto value = ensemble::wholeInteger(text)) return *value;
  throw ensemble::ConfigError("--" + name + " expects an integer, got '" + text + "'");
}

/// The bench itself; returns the exit code. Every LibTorch object (the trainer and, through
/// it, the replicas, their CUDA memory and worker threads) lives and dies inside it, with
/// the GPU's queued work finished, so nothing of them is left for the process's exit.
int runBench(const nlohmann::json& args) {
  const int64_t steps = integerArgument(args, "steps", "30");
  const int64_t warmup = integerArgument(args, "warmup", "5");
  ensemble::ExperimentConfig config;
  config.dataset = args.value("dataset", "fashion-mnist");
  config.model = ensemble::parseModel(args.value("model", "cnn"));
  config.mode = ensemble::parseMode(args.value("mode", "ensemble"));
  config.devices = args.value("devices", "cpu*4");
  config.batchSize = integerArgument(args, "batch-size", "128");
  config.memberForm = ensemble::parseMemberForm(args.value("member-form", "separate"));
  // auto by default, as a user's run: 256 on the CPU, 1000 on a GPU (evalBatchSizeFor)
  config.evalBatchSize = args.value("eval-batch-size", "auto") == "auto" ? ensemble::kAutoEvalBatchSize
                                                                        : integerArgument(args, "eval-batch-size", "");
  config.epochs = 1;
  config.trainLimit = (steps + warmup) * config.batchSize;
  config.testLimit = integerArgument(args, "test-limit", "10000");
  // A logged step reads the step numbers back, which waits for a GPU: one at the end of the
  // warm-up makes the clock's start include all queued warm-up work.
  config.logEvery = std::max<int64_t>(1, warmup);
  config.precision = ensemble::parsePrecision(args.value("precision", "fp32"));
  const auto deterministic = ensemble::parseSwitch(args.value("deterministic", "on"));
  if (!deterministic) throw ensemble::ConfigError("--deterministic takes on or off");
  config.deterministic = *deterministic;
  config.cudaGraphs = ensemble::parseCudaGraphs(args.value("cuda-graphs", "off"));
  const auto runDir = std::filesystem::temp_directory_path() /
                      ("ensemble-lab-bench-" + std::to_string(::getpid()));
  nlohmann::json result{{"side", "ensemblelab"},
                        {"model", ensemble::modelName(config.model)},
                        {"mode", ensemble::modeName(config.mode)},
                        {"devices", config.devices},
                        {"member_form", ensemble::memberFormName(config.memberForm)},
                        {"precision", ensemble::precisionName(config.precision)},
                        {"deterministic", config.deterministic},
                        {"cuda_graphs", ensemble::cudaGraphsName(config.cudaGraphs)},
                        {"batch_size", config.batchSize},
                        {"steps", steps}};
  const auto cleanUp = [&] {
    std::error_code ignored;  // a temporary folder: what stays is left to the system's cleaner
    ensemble::removeTree(runDir.string(), ignored);
  };
  try {
    auto trainer = ensemble::Trainer::create(config, runDir.string());
    StepClock clock(warmup);
    const auto finished = trainer->run(&clock, nullptr);
    if (finished.status != ensemble::RunStatus::Completed) throw std::runtime_error(finished.message);
    // The models the run trained, from what it ran on (the device spec resolved against
    // this machine's devices): each member trains on the whole batch.
    const int64_t members = int64_t(ensemble::RunMode::of(config.mode).modelCount(int(finished.summary->replicas)));
    // The steps the clock saw: a training split smaller than (warmup + steps) batches ends
    // the epoch, and so the run, early.
    const int64_t timedSteps = clock.lastStep - warmup;
    if (timedSteps < 1) {
      throw ensemble::ConfigError("the training split holds " + std::to_string(clock.lastStep) +
                                  " batches, not more than the " + std::to_string(warmup) +
                                  " warm-up steps; use a smaller --warmup or --batch-size");
    }
    const double seconds = clock.lastSeconds - clock.warmupSeconds;
    const std::string devices = trainer->devices();
    result["steps"] = timedSteps;
    result["devices"] = devices;
    result["members"] = members;
    // The forms the run resolved "auto" to, as its config.json records them.
    const nlohmann::json used = ensemble::RunDirectory::readJson((runDir / "config.json").string());
    result["member_form"] = used.value("member_form", result["member_form"].get<std::string>());
    result["cuda_graphs"] = used.value("cuda_graphs", result["cuda_graphs"].get<std::string>());
    result["eval_batch_size"] = used.value("eval_batch_size", config.evalBatchSize);
    // images_per_second is member-images/s, as bench/peer.py and flax_peer.py report it.
    result["batch_images_per_second"] = double(timedSteps * config.batchSize) / seconds;
    result["member_images_per_second"] = double(timedSteps * config.batchSize * members) / seconds;
    result["images_per_second"] = result["member_images_per_second"];
    // Evaluation as the window and `eval` do it: the run opened from its folder, once the
    // trainer has let its replicas and data go (so the peak memory is the run's, not two
    // sessions'). The first pass creates oneDNN's primitives and the allocator's blocks;
    // the second is timed, as the run's own evaluation after its first epoch would be.
    trainer.reset();
    const auto analysis = ensemble::RunAnalysis::open(runDir.string());
    analysis->evaluate();
    const auto start = std::chrono::steady_clock::now();
    analysis->evaluate();
    const double evalSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result["eval_images_per_second"] = double(config.testLimit) / evalSeconds;
    const bool gpu = ensemble::namesCudaDevice(devices);
    // Asked only after GPU work: the allocator's statistics exist once CUDA has started.
    result["peak_gpu_memory_mb"] = gpu ? double(ensemble::cudaPeakAllocatedBytes()) / double(1 << 20) : 0.0;
    if (gpu) ensemble::cudaFinishQueuedWork();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ensemble-lab-bench: %s\n", inFlags(e.what()).c_str());
    cleanUp();
    return 1;
  }
  cleanUp();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  result["peak_rss_mb"] = double(usage.ru_maxrss) / 1024.0;
  result["blas"] = loadedBlas();
  std::printf("%s\n", result.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  nlohmann::json args = nlohmann::json::object();
  for (int i = 1; i + 1 < argc; i += 2) args[std::string(argv[i]).substr(2)] = argv[i + 1];
  try {
    return runBench(args);
  } catch (const std::exception& e) {  // a bad argument, before any training
    std::fprintf(stderr, "ensemble-lab-bench: %s\n", inFlags(e.what()).c_str());
    return 2;
  }
}
