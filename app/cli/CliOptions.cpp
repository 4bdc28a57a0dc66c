#include "app/cli/CliOptions.h"

#include <algorithm>
#include <set>

namespace ensemble::cli {
namespace {

const std::map<std::string, std::set<std::string>>& flagsByCommand() {
  static const std::map<std::string, std::set<std::string>> flags{
      {"devices", {}},
      {"train",
       {"config", "dataset", "model", "mode", "devices", "lr", "momentum", "batch-size", "epochs",
        "seed", "train-limit", "test-limit", "checkpoint-every", "log-every", "eval-batch-size",
        "memory-budget", "member-form", "precision", "out", "world-size", "rank", "master-addr", "master-port", "backend", "timeout"}},
      {"resume", {"run", "world-size", "rank", "master-addr", "master-port", "backend", "timeout"}},
      {"eval", {"run", "dataset", "test-limit"}},
      {"help", {}},
      {"version", {}}};
  return flags;
}

}  // namespace

std::string usageText() {
  return R"(ensemble-lab-cli: train and compare deep ensembles, headless

Usage:
  ensemble-lab-cli devices
      List the CPU and every CUDA device: index, name, memory.
  ensemble-lab-cli train [flags]
      --config FILE.json      start from a config file (flags override it)
      --dataset NAME|DIR      fashion-mnist (default), synthetic, or a folder with the four
                              MNIST-format files (raw or .gz)
      --model NAME            cnn (default), lenet, resnet18
      --mode MODE             ensemble (default), single, data-parallel
      --devices SPEC          cpu, cpu*4, cuda:0,cuda:1, cuda*2, cuda:0*8 or all
                              (default: cpu*4 for ensemble, cpu for single, cpu*2 for
                              data-parallel; every GPU when there are several)
      --lr X                  learning rate (default 0.1)
      --momentum X            SGD momentum in [0, 1) (default 0.9)
      --batch-size N          per-member batch; the global batch in data-parallel (128)
      --epochs N              (default 10)
      --seed N                run seed; member i's seed is split off it (default 0)
      --train-limit N         use the first N training samples (default: all)
      --test-limit N          use the first N test samples (default: all)
      --checkpoint-every N    also checkpoint every N steps (default: epoch ends only)
      --log-every N           write a metrics row every N steps (default 10)
      --eval-batch-size N     images per evaluation batch (default 256)
      --memory-budget MB      refuse to start when the run's measured memory need
                              (dataset, replicas, evaluation) exceeds MB MiB
      --member-form FORM      separate (default) or stacked: ensemble members that share
                              a device trained as one network of stacked weights (cnn)
      --precision P           fp32 (default), tf32 (CUDA matmuls and convolutions in
                              TensorFloat-32) or bf16 (autocast to bfloat16)
      --out DIR               run folder (default: ~/.local/share/ensemble-lab/runs/<name>)
    Several processes or hosts (c10d process group; torchrun's RANK, WORLD_SIZE,
    LOCAL_RANK, MASTER_ADDR and MASTER_PORT are read when the flags are absent):
      --world-size N          processes in the run (default 1)
      --rank R                this process, 0..N-1; rank 0 writes the run folder
      --master-addr HOST      host of rank 0 (default 127.0.0.1)
      --master-port P         its rendezvous port (default 29500)
      --backend NAME          gloo (CPU, default) or nccl (GPU builds with NCCL)
      --timeout SECONDS       wait this long for a missing peer, then name it (300)
      Each rank trains the members (or the shard) of its own --devices (default: one,
      its GPU or the CPU); member i of the group gets seed i, as in one process.
  ensemble-lab-cli resume --run DIR [--world-size N --rank R ...]
      Continue an interrupted run from its last checkpoint (every rank of a
      multi-process run needs the run folder, e.g. on a shared filesystem).
  ensemble-lab-cli eval --run DIR [--dataset NAME|DIR] [--test-limit N]
      Evaluate a run's latest checkpoint; prints the metrics as JSON.
  ensemble-lab-cli --version | --help

Exit status: 0 success, 1 error, 2 usage error, 130 stopped by a signal (resumable).
)";
}

CliOptions parseCommandLine(const std::vector<std::string>& arguments) {
  CliOptions options;
  if (arguments.empty()) throw UsageError("no command given; try `ensemble-lab-cli --help`");
  options.command = arguments.front();
  if (options.command == "--help" || options.command == "-h") options.command = "help";
  if (options.command == "--version") options.command = "version";
  const auto known = flagsByCommand().find(options.command);
  if (known == flagsByCommand().end()) {
    throw UsageError("unknown command '" + options.command +
                     "'; the commands are devices, train, resume and eval (see --help)");
  }
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& argument = arguments[i];
    if (argument == "--help" || argument == "-h") {
      options.command = "help";
      return options;
    }
    if (argument.rfind("--", 0) != 0) {
      throw UsageError("unexpected argument '" + argument + "' for " + options.command +
                       "; flags start with -- (see --help)");
    }
    std::string name = argument.substr(2), value;
    const std::size_t equals = name.find('=');
    if (equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
    } else if (i + 1 < arguments.size()) {
      value = arguments[++i];
    } else {
      throw UsageError("--" + name + " needs a value");
    }
    if (!known->second.count(name)) {
      throw UsageError("unknown flag --" + name + " for " + options.command + " (see --help)");
    }
    options.flags[name] = value;
  }
  return options;
}

}  // namespace ensemble::cli
