// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/RunSetup.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/comm/LocalCommunicator.h"
#include "core/comm/NcclCommunicator.h"
#include "core/comm/ProcessGroupCommunicator.h"
#include "core/comm/ProcessGroupOptions.h"
#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/common/FieldMention.h"
#include "core/common/SeedSequence.h"
#include "core/config/RunMode.h"
#include "core/data/DatasetSource.h"
#include "core/data/OutOfDistributionSets.h"
#include "core/devices/DeviceInventory.h"
#include "core/io/Checkpoint.h"
#include "core/io/PyTorchStateDict.h"
#include "core/io/RunDirectory.h"
#include "core/runs/RunSummary.h"
#include "core/train/CpuThreads.h"
#include "core/train/CudaGraphStep.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/MemoryEstimate.h"
#include "core/train/Replica.h"
#include "core/train/RunState.h"

namespace ensemble {
namespace {

bool isCpu(const DeviceRef& device) { return device.kind == DeviceRef::Kind::Cpu; }

/// The CUDA indices of `devices` when each replica has a GPU of its own (what NCCL needs);
/// empty otherwise.
std::vector<int> distinctGpus(const std::vector<DeviceRef>& devices) {
  std::vector<int> gpus;
  for (const DeviceRef& device : devices) {
    if (device.kind != DeviceRef::Kind::Cuda || std::count(gpus.begin(), gpus.end(), device.index)) return {};
    gpus.push_back(device.index);
  }
  return gpus;
}

/// Whether every replica is on the same GPU (the case stacking and CUDA graphs are for).
bool allOnOneGpu(const std::vector<DeviceRef>& devices) {
  return !devices.empty() && devices.front().isCuda() &&
         std::all_of(devices.begin(), devices.end(), [&](const DeviceRef& d) { return d == devices.front(); });
}

/// cuda_graphs captures a step on one GPU in one process (CudaGraphStep.h): anything else is
/// refused at start, before anything is written.
void checkCudaGraphs(const ExperimentConfig& config, const std::vector<DeviceRef>& devices,
                     const ProcessGroupOptions& group) {
  if (config.cudaGraphs != CudaGraphs::On) return;
  const std::string off = "; or use " + mention::field("cuda_graphs") + " off";
  if (!cudaGraphsBuilt()) {
    throw ConfigError(mention::field("cuda_graphs") + " on captures training steps on a GPU, and this build's LibTorch "
                      "has no CUDA; use the CUDA build (scripts/build-cuda.sh, docs/GPU.md)" + off, "cuda_graphs");
  }
  if (!allOnOneGpu(devices)) {
    throw ConfigError(mention::field("cuda_graphs") + " on captures each step on one GPU, and this run's devices are " +
                      formatDevices(devices) + "; put the members on one GPU (e.g. " + mention::field("devices") +
                      " cuda:0*8)" + off, "cuda_graphs");
  }
  if (RunMode::of(config.mode).averaged() == Averaged::Gradients) {
    throw ConfigError(mention::field("cuda_graphs") + " on captures ensemble and single runs; a data-parallel step "
                      "averages gradients between replicas, which is not captured" + off, "cuda_graphs");
  }
  if (group.distributed()) {
    throw ConfigError("rank " + std::to_string(group.rank) + ": " + mention::field("cuda_graphs") +
                      " on captures a step in one process, and this run's collectives cross processes" + off,
                      "cuda_graphs");
  }
}

}  // namespace

std::vector<DeviceRef> resolveRunDevices(ExperimentConfig& config, const ProcessGroupOptions& group) {
  config.validate();
  group.validate();
  const int cudaCount = cudaDeviceCount();
  if (group.distributed() && config.devices.empty()) {
    // One replica per process unless told otherwise: this host's GPU for the rank, or the CPU.
    config.devices = cudaCount > 0 ? "cuda:" + std::to_string(group.localRank % cudaCount) : "cpu";
  }
  std::vector<DeviceRef> devices;
  try {
    devices = parseDeviceSpec(config.effectiveDevices(cudaCount), cudaCount, whyNoCudaDevice());
  } catch (const DeviceError& error) {
    if (!group.distributed()) throw;
    // The other ranks will say this one did not join; this one says why, and which it is.
    throw DeviceError("rank " + std::to_string(group.rank) + " on host " + environment::hostName() + ": " +
                          error.what(),
                      error.field());
  }
  RunMode::of(config.mode).checkReplicas(group.worldSize, int64_t(devices.size()), config.batchSize,
                                        config.effectiveDevices(cudaCount));
  if (config.precision == Precision::Tf32 && std::all_of(devices.begin(), devices.end(), isCpu)) {
    throw ConfigError("precision tf32 changes how NVIDIA GPUs multiply matrices; this run has no CUDA device (" +
                      formatDevices(devices) + "). Use " + mention::field("precision") + " fp32, or bf16 (autocast, also on the CPU)",
                      "precision");
  }
  for (const DeviceRef& device : devices) {
    if (config.precision == Precision::Bf16 && device.isCuda() && !cudaDeviceHasBf16(device.index)) {
      throw ConfigError("precision bf16 needs a GPU that computes in bfloat16 (compute capability 8.0, Ampere, or "
                        "newer); " + device.str() + " is older. Use " + mention::field("precision") +
                        " fp32 on it", "precision");
    }
  }
  checkCudaGraphs(config, devices, group);
  return devices;
}

std::shared_ptr<const DatasetPair> loadRunData(const ExperimentConfig& config,
                                               std::shared_ptr<const DatasetPair> given, bool forTraining) {
  std::shared_ptr<const DatasetPair> data = std::move(given);
  if (!data) {
    data = std::make_shared<DatasetPair>(loadDataset(config.dataset, config.trainLimit, config.testLimit));
  } else if (config.trainLimit > 0 || config.testLimit > 0) {  // data handed in whole
    auto limited = std::make_shared<DatasetPair>(*data);
    limited->train = limited->train.firstSamples(config.trainLimit);
    limited->test = limited->test.firstSamples(config.testLimit);
    data = limited;
  }
  if (forTraining) refuseBatchLargerThanTrainingSet(config, data->train.size());
  return data;
}

void refuseBatchLargerThanTrainingSet(const ExperimentConfig& config, int64_t trainSamples) {
  if (config.batchSize <= trainSamples) return;
  // A larger train_limit helps only where the limit is what cut the set short.
  const bool limitCut = config.trainLimit > 0 && trainSamples == config.trainLimit;
  throw ConfigError("batch size " + std::to_string(config.batchSize) + " is larger than the " + std::to_string(trainSamples) +
                        " training samples" +
                        (limitCut ? "; use a smaller " + mention::field("batch_size") + " or a larger " +
                                        mention::field("train_limit")
                                  : " the dataset holds; use a " + mention::field("batch_size") + " of at most " +
                                        std::to_string(trainSamples)),
                    "batch_size");
}

MemberForm resolveMemberForm(const ExperimentConfig& config, const std::vector<DeviceRef>& devices) {
  if (config.memberForm != MemberForm::Auto) return config.memberForm;
  const bool oneGpu = devices.size() > 1 && allOnOneGpu(devices);  // one member: nothing to stack
  const bool stackable = RunMode::of(config.mode).averaged() == Averaged::Probabilities && config.model == ModelKind::Cnn && config.initFrom.empty();
  return oneGpu && stackable ? MemberForm::Stacked : MemberForm::Separate;
}

void checkSameImageSize(const std::string& trainedOn, const std::string& dataset) {
  ImageSize trained;
  try {
    trained = testImageSize(trainedOn);
  } catch (const DatasetError&) {
    return;  // the training data is gone: the weights' shapes will still be checked
  }
  const ImageSize given = testImageSize(dataset);  // a folder that is no dataset says so here
  if (trained.height == given.height && trained.width == given.width) return;
  const auto size = [](const ImageSize& image) {
    return std::to_string(image.height) + "x" + std::to_string(image.width);
  };
  throw DatasetError("the dataset " + dataset + " holds " + size(given) + " images, but this run's models were trained on " +
                     trainedOn + "'s " + size(trained) + " images; evaluate it on a dataset of that size "
                     "(resize its images first)");
}

bool everyDeviceIsGpu(const std::vector<DeviceRef>& devices) {
  return !devices.empty() && std::none_of(devices.begin(), devices.end(), isCpu);
}

CudaGraphs resolveCudaGraphs(const ExperimentConfig& config, const std::vector<DeviceRef>& devices, bool distributed,
                             bool cudaBuild) {
  if (config.cudaGraphs != CudaGraphs::Auto) return config.cudaGraphs;
  const bool shown = config.model == ModelKind::Cnn &&
                     (config.mode == TrainingMode::Single ||
                      (config.mode == TrainingMode::Ensemble && config.memberForm == MemberForm::Stacked));
  // A varying rate (a warmup, a schedule) is no exception: a captured step reads it from the
  // device (SgdMomentum::setLearningRate), and an H200 gave the eager step's numbers byte for
  // byte with warmup + cosine (scripts/gpu-check.sh 2o, 2026-12-04).
  return cudaBuild && !distributed && allOnOneGpu(devices) && shown ? CudaGraphs::On : CudaGraphs::Off;
}

Dataset loadOutOfDistribution(const std::string& dataset, const Dataset& runTest, std::uint64_t seed) {
  if (auto builtIn = makeOutOfDistributionSet(dataset, runTest, seed)) return *builtIn;
  const ModelInput input = modelInputOf(runTest);
  Dataset test;
  try {
    test = loadTestSplit(dataset);  // its test files alone: a folder of one's own images will do
  } catch (const DatasetError& e) {
    // Said of the out-of-distribution set: loading names the run's dataset setting, which
    // is not what was mistyped ("pass --dataset fashion-mnist, synthetic, ..." for --ood invertd).
    std::string message = e.what();
    const std::string runsDataset = mention::field("dataset");
    for (std::size_t at = message.find(runsDataset); at != std::string::npos; at = message.find(runsDataset, at)) {
      message.replace(at, runsDataset.size(), mention::oodDataset());
    }
    if (message.find(" does not exist") != std::string::npos) {
      // Only its test files are read: a folder of one's own images needs no training files.
      const std::string four = "the four MNIST-format files";
      if (const std::size_t at = message.find(four); at != std::string::npos) {
        message.replace(at, four.size(), "MNIST-format test files (t10k-images and t10k-labels)");
      }
      message += "; or inverted or uniform-noise, made from the run's own test set";
    }
    throw DatasetError(message);
  }
  if (test.size() == 0) {
    throw DatasetError("the out-of-distribution dataset " + dataset +
                       " has no test images; give one whose test files (t10k-*) hold some");
  }
  const auto shape = [](int64_t channels, int64_t height, int64_t width) {
    return std::to_string(height) + "x" + std::to_string(width) + (channels == 1 ? " grey" : " " + std::to_string(channels) + "-channel");
  };
  const int64_t channels = test.images.size(1);
  if (channels != input.channels || test.height() != input.height || test.width() != input.width) {
    throw DatasetError("the out-of-distribution dataset " + dataset + " holds " + shape(channels, test.height(), test.width()) +
                       " images, but this run's models take " + shape(input.channels, input.height, input.width) +
                       " images; give a dataset of that size (resize its images first)");
  }
  return test;
}

ModelInput modelInputOf(const Dataset& train) {
  ModelInput input;
  input.channels = train.images.size(1);
  input.height = train.height();
  input.width = train.width();
  input.classes = train.classes;
  return input;
}

namespace {

/// "an allocation of 2.2 GiB failed", where LibTorch's allocator says how much it was asked
/// for ("... you tried to allocate 2415919104 bytes. Error code 12 ..."); else its message.
std::string failedAllocation(const std::exception& error) {
  const std::string message = describeException(error);
  const std::string asked = "tried to allocate ";
  const std::size_t at = message.find(asked);
  if (at == std::string::npos) return message;
  const std::uint64_t bytes = std::strtoull(message.c_str() + at + asked.size(), nullptr, 10);
  return bytes > 0 ? "an allocation of " + formatBytes(bytes) + " failed" : message;
}

}  // namespace

void checkMemoryBudget(const ExperimentConfig& config, const std::vector<DeviceRef>& devices, int worldSize,
                       const DatasetPair& data, const ModelInput& input) {
  if (config.memoryBudgetMb <= 0) return;
  const int cpuReplicas = int(std::count_if(devices.begin(), devices.end(), isCpu));
  if (cpuReplicas == 0) return;
  // Storage, not element counts: a limited split is a view that keeps the whole file alive.
  const auto bytesOf = [](const Dataset& split) {
    return std::uint64_t(split.images.storage().nbytes()) + std::uint64_t(split.labels.storage().nbytes());
  };
  const int64_t batchPerReplica =
      RunMode::of(config.mode).batchPerReplica(config.batchSize, int64_t(devices.size()) * worldSize);
  const bool stacked = config.memberForm == MemberForm::Stacked;
  const std::uint64_t budget = std::uint64_t(config.memoryBudgetMb) << 20;
  const std::string imageSize = std::to_string(input.height) + "x" + std::to_string(input.width);
  MemoryEstimate estimate;
  try {
    estimate = estimateCpuMemory(modelName(config.model), input, batchPerReplica, config.evalBatchSize, cpuReplicas,
                                 bytesOf(data.train) + bytesOf(data.test),
                                 // stacked members step as one network: all their activations at once
                                 stacked ? cpuReplicas : replicaThreadCount(devices, false), budget);
  } catch (const std::exception& error) {
    if (!isHostOutOfMemory(error)) throw;
    // The budget is set: its advice to set one would say nothing. What does not fit is one replica.
    throw ConfigError("this run does not fit in this machine's memory: measuring one replica of it (the " +
                          modelName(config.model) + " on " + imageSize + " images, its weights, gradients and a step at "
                          "batch 2) already ran out of host memory (" + failedAllocation(error) +
                          "); use a smaller model or smaller images",
                      "memory_budget_mb");
  }
  if (estimate.totalBytes() <= budget) return;
  const std::string replicas = std::to_string(cpuReplicas) + " replica(s) of " + formatBytes(estimate.modelStateBytes);
  if (!estimate.stepsMeasured) {
    throw ConfigError("this run needs more than " + formatBytes(estimate.totalBytes()) + " of memory before its first step (dataset " +
                          formatBytes(estimate.datasetBytes) + ", " + replicas + ": the " + modelName(config.model) +
                          "'s weights on " + imageSize + " images, their gradients and momentum), more than its memory "
                          "budget of " + formatBytes(budget) + "; use a smaller model or smaller images, fewer " +
                          mention::field("devices") + ", or raise " + mention::field("memory_budget_mb"),
                      "memory_budget_mb");
  }
  throw ConfigError("this run needs about " + formatBytes(estimate.totalBytes()) + " of memory (dataset " +
                    formatBytes(estimate.datasetBytes) + ", " + replicas + ", a step at batch " + std::to_string(batchPerReplica) +
                    " " + formatBytes(estimate.stepBytes) + ", evaluation " + formatBytes(estimate.evaluationBytes) +
                    "), more than its memory budget of " + formatBytes(budget) +
                    "; use a smaller " + mention::field("batch_size") + " or " + mention::field("eval_batch_size") +
                    ", fewer " + mention::field("devices") + ", or raise " + mention::field("memory_budget_mb"),
                    "memory_budget_mb");
}

std::unique_ptr<Communicator> connectReplicas(const ExperimentConfig& config, const std::vector<DeviceRef>& devices,
                                              const ProcessGroupOptions& group, const std::string& runFolder) {
  if (group.distributed()) {
    // Every rank must train the same experiment; only the devices are its own.
    nlohmann::json shared = config.toJson();
    shared.erase("devices");
    // Resolved for each rank's own devices (evalBatchSizeFor): it only batches the evaluation.
    shared.erase("eval_batch_size");
    const DeviceRef& first = devices.front();
    return connectProcessGroup(group, int(devices.size()), first.str(),
                               first.isCuda() ? cudaDeviceBusId(first.index) : first.str(), shared, runFolder);
  }
  // A backend asked for in one process is checked all the same, though no process group
  // uses it: `--backend nccl` had been taken without a word by a build without NCCL.
  if (!group.backend.empty()) chooseBackend(group.backend, devices.front().str());
  if (std::vector<int> gpus = distinctGpus(devices); ncclAvailable() && gpus.size() > 1) {
    return makeNcclCommunicator(gpus, group.timeoutSeconds);  // like pmap's pmean
  }
  return std::make_unique<LocalCommunicator>(int(devices.size()));
}

void checkResumedRunsDatasetIsThere(const std::string& spec) {
  if (spec == "synthetic") return;  // generated, never missing
  const std::string folder = spec == "fashion-mnist" ? defaultFashionMnistFolder() : spec;
  std::error_code ec;
  if (std::filesystem::is_directory(folder, ec)) {
    // Its files moved into a subfolder: the loader would say to name that one in --dataset,
    // which resume does not take (the run goes on with the data it started with).
    if (spec == "fashion-mnist") return;
    try {
      trainingSampleCount(spec);  // the training images' header alone
      return;
    } catch (const DatasetError&) {
      const std::string inside = subfolderWithADataset(folder);
      if (inside.empty()) throw;  // a missing or damaged file: named as it is
      throw DatasetError("dataset folder " + folder + ", which this run trained on, no longer holds its MNIST-format "
                             "files, but its subfolder " + inside + " does; move them back to " + folder +
                             ", then resume the run (it goes on with the data it started with)",
                         "dataset");
    }
  }
  if (spec == "fashion-mnist") {
    throw DatasetError("Fashion-MNIST, which this run trained on, is not installed at " + folder +
                           "; install it with `apt install dataset-fashion-mnist`, then resume the run",
                       "dataset");
  }
  throw DatasetError("dataset folder " + folder + ", which this run trained on, " +
                         (std::filesystem::exists(folder, ec) ? "is a file, not a folder" : "does not exist") +
                         "; put the run's dataset back there, then resume the run (it goes on with the data it "
                         "started with)",
                     "dataset");
}

void checkResumedByItsProcesses(const std::string& runDirectory, int worldSize) {
  int64_t processes = 0;
  try {
    processes = RunSummary::read(RunDirectory(runDirectory).summaryPath()).processes;
  } catch (const Error&) {
    return;  // no summary to say (checkResumable still refuses a checkpoint that does not fit)
  }
  if (processes == worldSize) return;
  if (processes > 1) {
    throw ConfigError("run " + runDirectory + " was trained by " + std::to_string(processes) +
                      " processes (summary.json), and resumes only as the same group: start every rank with " +
                      mention::resumeCommand(runDirectory) + " --world-size " + std::to_string(processes) +
                      " --rank R (R its own) and the --master-addr and --master-port they were started with");
  }
  throw ConfigError("run " + runDirectory + " was trained by one process (summary.json), not a group of " +
                    std::to_string(worldSize) + "; resume it with " + mention::resumeCommand(runDirectory) +
                    " alone, without --world-size");
}

void checkSameTrainingSet(int64_t recorded, int64_t now, const std::string& spec) {
  if (recorded == now) return;
  const std::string folder = spec == "fashion-mnist" ? defaultFashionMnistFolder() : spec;
  throw DatasetError("the dataset " + folder + " changed since this run trained: the run recorded " +
                         std::to_string(recorded) + " training images, it now has " + std::to_string(now) +
                         "; put the run's dataset back as it was to go on with the run, or start a new run on "
                         "this one with " + mention::startRun(),
                     "dataset");
}

void checkSameDataContent(const std::string& recorded, const std::string& now, const std::string& split,
                          const std::string& spec) {
  if (recorded.empty() || recorded == now) return;
  const std::string folder = spec == "fashion-mnist" ? defaultFashionMnistFolder() : spec;
  throw DatasetError("the dataset " + folder + " changed since this run trained: its " + split +
                         " images or labels are not the ones the run recorded (crc32 " + recorded + ", now " + now +
                         "), though as many; put the run's dataset back as it was to go on with the run, or start "
                         "a new run on this one with " + mention::startRun(),
                     "dataset");
}

void checkResumable(const RunState& state, const ExperimentConfig& config, int64_t stepsPerEpoch,
                    std::size_t models, std::size_t savedModels, bool otherDataset, const std::string& checkpointDir) {
  // A manifest that parses can still describe another run (or be damaged): its position
  // must fit this run's epochs and steps, its running means this run's models.
  const std::size_t slots = models + 1;
  const bool positionFits = otherDataset || (state.epoch >= 0 && state.epoch <= config.epochs &&
                                             state.stepInEpoch >= 0 && state.stepInEpoch < stepsPerEpoch &&
                                             state.globalStep == state.epoch * stepsPerEpoch + state.stepInEpoch);
  if (!positionFits || state.window.size() != slots || state.epochTotals.size() != slots) {
    throw CheckpointError(checkpointDir + "/manifest.json holds a run state that does not fit this run (epoch " +
                          std::to_string(state.epoch) + ", step " + std::to_string(state.stepInEpoch) + " of " +
                          std::to_string(stepsPerEpoch) + " per epoch, global step " +
                          std::to_string(state.globalStep) + ", " + std::to_string(state.window.size()) +
                          " score slots for " + std::to_string(slots) +
                          "); the checkpoint is damaged or belongs to another run" +
                          // A checkpoint from before RunState kept the training images cannot
                          // tell a changed dataset apart (checkSameTrainingSet does for newer ones).
                          (state.trainSamples == 0 ? ", or the run's dataset changed since it trained" : ""));
  }
  if (savedModels != models) {
    throw CheckpointError(checkpointDir + " holds " + std::to_string(savedModels) + " models but the run has " +
                          std::to_string(models));
  }
}

std::vector<Replica> buildReplicas(const ExperimentConfig& config, const ModelInput& input,
                                   const std::vector<DeviceRef>& devices, int firstReplica) {
  std::vector<Replica> replicas;
  for (std::size_t r = 0; r < devices.size(); ++r) {
    const std::uint64_t index = RunMode::of(config.mode).modelOfReplica(firstReplica, r);
    replicas.push_back(makeReplica(modelName(config.model), input, devices[r], deriveSeed(config.seed, SeedStream::Member, index),
                                   config.learningRate, config.momentum, config.weightDecay, config.initStd));
  }
  return replicas;
}

void refuseOptimizerStateAsWeights(const std::string& file) {
  if (const std::string weights = weightsBesideOptimizerState(file); !weights.empty()) {
    throw ConfigError(mention::field("init_from") + " file " + file + " holds a checkpoint's optimizer state " +
                          "(momentum buffers), not weights; give the weights beside it, " + weights,
                      "init_from");
  }
}

namespace {

/// The weights of one init_from file (a state_dict torch.save wrote). Weights with a NaN or
/// an infinity cannot train: refused here, naming the entry (they had trained to a NaN loss
/// at step 1, blamed on the learning rate, and left a failed run behind).
TensorDict readInitialWeights(const std::string& file) {
  refuseOptimizerStateAsWeights(file);
  TensorDict weights;
  try {
    weights = readPyTorchStateDict(file);
  } catch (const Error& e) {
    // Named as the setting's: "none.pt: cannot open it" had named no flag.
    throw ConfigError(mention::field("init_from") + " " + e.what(), "init_from");
  }
  for (const auto& item : weights) {
    const torch::Tensor& tensor = item.value();
    if (!tensor.is_floating_point() || tensor.numel() == 0) continue;
    const int64_t notFinite = tensor.numel() - torch::isfinite(tensor).sum().item<int64_t>();
    if (notFinite == 0) continue;
    throw ConfigError(mention::field("init_from") + " file " + file + " holds " + std::to_string(notFinite) + " of " +
                          std::to_string(tensor.numel()) + " values in '" + item.key() +
                          "' that are NaN or infinite: such weights cannot train. Start from other weights (a "
                          "checkpoint written before the run that saved these diverged) or without " +
                          mention::field("init_from"),
                      "init_from");
  }
  return weights;
}

}  // namespace

void checkInitialWeightsFile(const std::string& file) { static_cast<void>(readInitialWeights(file)); }

std::vector<std::string> initialWeightFiles(const ExperimentConfig& config, std::size_t models) {
  const std::vector<std::string> given = config.initFromFiles();
  std::vector<std::string> files;
  for (const std::string& path : given) {
    try {
      const std::vector<std::string> found = weightFilesAt(path);
      files.insert(files.end(), found.begin(), found.end());
    } catch (const CheckpointError& e) {
      throw ConfigError(mention::field("init_from") + " " + path + ": " + e.what(), "init_from");
    }
  }
  if (files.size() <= 1 || files.size() == models) return files;
  if (given.size() == 1) {  // a folder: its checkpoint's models
    throw ConfigError(mention::field("init_from") + " " + given.front() + " holds the weights of " +
                          std::to_string(files.size()) + " models (" + std::filesystem::path(files.front()).parent_path().string() +
                          ") but this run has " + std::to_string(models) + "; give one of its files to start every model from (" +
                          files.front() + "), or train " + std::to_string(files.size()) + " models",
                      "init_from");
  }
  throw ConfigError(mention::field("init_from") + " names " + std::to_string(files.size()) + " files for " +
                        std::to_string(models) + " models; give one file for all, or one per model",
                    "init_from");
}

void initialiseReplicasFrom(std::vector<Replica>& replicas, const ExperimentConfig& config, int firstReplica,
                            std::size_t models) {
  const std::vector<std::string> files = initialWeightFiles(config, models);
  if (files.empty()) return;
  std::map<std::size_t, TensorDict> read;  // each file once, however many replicas start from it
  for (std::size_t r = 0; r < replicas.size(); ++r) {
    const std::size_t model = RunMode::of(config.mode).modelOfReplica(firstReplica, r);
    const std::size_t file = files.size() == 1 ? 0 : model;
    if (!read.count(file)) read.emplace(file, readInitialWeights(files[file]));
    replicas[r].initialiseFrom(read.at(file), files[file], modelName(config.model));
  }
}

void restoreReplicas(std::vector<Replica>& replicas, const CheckpointData& saved, TrainingMode mode, int firstReplica,
                     const std::string& checkpointDir) {
  for (std::size_t r = 0; r < replicas.size(); ++r) {
    const std::size_t source = RunMode::of(mode).modelOfReplica(firstReplica, r);
    replicas[r].load(saved.weights[source], saved.optimizer[source],
                     checkpointDir + "/member-" + std::to_string(source) + ".pt");
  }
}

}  // namespace ensemble
