#include "core/train/Trainer.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <cmath>
#include <map>
#include <sstream>

#include "core/comm/LocalCommunicator.h"
#include "core/comm/NcclCommunicator.h"
#include "core/comm/ProcessGroupCommunicator.h"
#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/common/SeedSequence.h"
#include "core/data/DatasetSource.h"
#include "core/data/EpochSampler.h"
#include "core/devices/DeviceInventory.h"
#include "core/io/Checkpoint.h"
#include "core/io/MetricsCsvWriter.h"
#include "core/io/RunDirectory.h"
#include "core/metrics/EvaluationJson.h"
#include "core/models/StackedCnn.h"
#include "core/train/CpuThreads.h"
#include "core/train/Evaluator.h"
#include "core/train/MemoryEstimate.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"
#include "core/train/ReplicaWorkers.h"
#include "core/train/RunControl.h"
#include "core/train/RunState.h"
#include "core/train/TrainingObserver.h"

namespace ensemble {
namespace {

namespace F = torch::nn::functional;
using Clock = std::chrono::steady_clock;

/// A split's tensors on one device (shared by every replica on that device).
struct DeviceCopy {
  torch::Tensor images;
  torch::Tensor labels;
};

/// One step's batch on one device.
struct Batch {
  torch::Tensor inputs;  ///< float [B, C, H, W]
  torch::Tensor labels;
};

/// Per-step numbers of one model: mean loss over its samples and correct predictions.
struct StepScore {
  double loss = 0;
  int64_t correct = 0;
  int64_t samples = 0;
};

/// A trained step's numbers, left on the device until they are needed (a logged row, a
/// checkpoint, the epoch's end, or kMaxPendingSteps of them): reading them every step
/// would make the host wait for a GPU after each step.
struct PendingStep {
  torch::Tensor rows;  ///< float64 [rows, 3]: loss, correct, samples
  int64_t globalStep = 0;
  int64_t epoch = 0;
};
constexpr std::size_t kMaxPendingSteps = 64;

/// A score row on `device`: the mean loss, the number of correct predictions, the samples.
torch::Tensor scoreRow(const torch::Tensor& loss, const torch::Tensor& correct, int64_t samples) {
  return torch::stack({loss.detach().to(torch::kFloat64).reshape({}), correct.to(torch::kFloat64).reshape({}),
                       torch::full({}, double(samples), loss.options().dtype(torch::kFloat64))});
}

/// Threads for a step's replicas: one per core for CPU replicas (each runs on one
/// intra-op thread), unless ENSEMBLELAB_REPLICA_THREADS says otherwise; GPUs queue their
/// work asynchronously, so one thread drives them.
int replicaThreads(const std::vector<DeviceRef>& devices) {
  const bool allCpu = std::all_of(devices.begin(), devices.end(),
                                  [](const DeviceRef& d) { return d.kind == DeviceRef::Kind::Cpu; });
  if (const char* forced = std::getenv("ENSEMBLELAB_REPLICA_THREADS"); forced && std::atoi(forced) > 0) {
    return std::atoi(forced);
  }
  if (!allCpu) return 1;
  return int(std::max<std::size_t>(1, std::min<std::size_t>(devices.size(), std::thread::hardware_concurrency())));
}

/// LibTorch intra-op threads for the thread that drives the run: every core when one CPU
/// replica has the machine to itself, one when replicas share the cores (side by side, or
/// with other processes of a group on this host), unchanged for GPUs.
int intraOpThreads(const std::vector<DeviceRef>& devices, bool distributed, bool stacked) {
  if (devices.empty() || devices.front().kind != DeviceRef::Kind::Cpu) return 0;
  if ((devices.size() > 1 && !stacked) || distributed) return 1;
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

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

}  // namespace

struct Trainer::Impl {
  ExperimentConfig config;
  ProcessGroupOptions group;
  RunDirectory directory{""};
  std::shared_ptr<const DatasetPair> data;
  std::vector<DeviceRef> devices;
  std::vector<Replica> replicas;
  /// With member form "stacked": the members as one network (their parameters are views
  /// of its stacks) and its optimizer (their momentum buffers are views of its buffers).
  StackedCnn stacked{nullptr};
  std::unique_ptr<SgdMomentum> stackedOptimizer;
  std::unique_ptr<Communicator> communicator;
  std::unique_ptr<ReplicaWorkers> workers;  ///< runs a step's CPU replicas side by side
  LocalCommunicator soloCommunicator{1};
  std::map<std::string, DeviceCopy> trainCopies, testCopies;
  std::unique_ptr<EpochSampler> sampler;
  RunState state;
  bool resumed = false;
  std::unique_ptr<MetricsCsvWriter> metrics;
  int64_t lastCheckpointStep = -1;
  bool localStopRequest = false;  ///< this process was asked to stop (signal, UI)
  bool stopAgreed = false;        ///< some process of the group was; all stop together
  std::vector<PendingStep> pending;  ///< trained steps whose numbers are still on the device

  bool dataParallel() const { return config.mode == TrainingMode::DataParallel; }
  bool ensembleMode() const { return config.mode == TrainingMode::Ensemble; }
  int intraOpThreadCount() const { return intraOpThreads(devices, distributed(), bool(stacked)); }
  bool distributed() const { return communicator->processCount() > 1; }
  /// Rank 0 alone writes the run folder; the other ranks only train.
  bool leader() const { return communicator->processRank() == 0; }
  std::size_t worldReplicas() const { return std::size_t(communicator->worldReplicas()); }
  /// Models whose metrics are reported: one per replica of the whole group, except
  /// data-parallel (one model).
  std::size_t memberCount() const { return dataParallel() ? 1 : worldReplicas(); }
  int64_t samplesPerStep() const { return config.batchSize * int64_t(memberCount()); }

  void prepare();
  /// Throws ConfigError when the run's measured memory need exceeds its budget.
  void checkMemoryBudget(const ModelInput& input) const;
  const DeviceCopy& onDevice(std::map<std::string, DeviceCopy>& copies, const Dataset& split,
                             const torch::Device& device);
  /// Trains one step and queues its numbers (see PendingStep).
  void trainStep(const std::vector<int64_t>& permutation);
  /// Rows (loss, correct, samples) per member, then the ensemble's when there are several.
  torch::Tensor ensembleStep(const torch::Tensor& indices);
  /// Trains every member on its device's batch (separately or stacked), leaves each
  /// member's softmax probabilities in `probabilities` and returns its score row.
  std::vector<torch::Tensor> trainMembers(const std::map<std::string, Batch>& batches,
                                          std::vector<torch::Tensor>& probabilities);
  std::vector<torch::Tensor> trainStacked(const Batch& batch, std::vector<torch::Tensor>& probabilities);
  void stackMembers();
  /// Rows (loss, correct, samples) per replica's shard.
  torch::Tensor dataParallelStep(const torch::Tensor& indices);
  /// Reads every queued step's numbers back in one transfer and records them in order.
  void flushScores();
  /// Every replica's step score from every process, and whether any process asked to
  /// stop (one small all-gather; nothing to do in a single process).
  std::vector<StepScore> exchangeScores(const std::vector<StepScore>& local);
  /// Each member's `dict` (weights or optimizer state) from every process, in member order.
  std::vector<TensorDict> gatherMembers(const std::vector<TensorDict>& local);
  EvaluationResult evaluate();
  void resetAccumulators(std::vector<ScoreAccumulator>& list) const {
    list.assign(memberCount() + 1, ScoreAccumulator{});
  }
  std::string memberName(std::size_t index) const {
    return index < memberCount() ? std::to_string(index) : "ensemble";
  }
  /// Which accumulators get a metrics row: members, plus the ensemble in ensemble mode.
  std::size_t reportedRows() const { return memberCount() + (ensembleMode() ? 1 : 0); }
  void logStep(TrainingObserver* observer, bool writeRow, int64_t sessionSteps,
               double sessionSeconds);
  /// Evaluates, writes the epoch's metrics rows and moves the state to the next epoch.
  EpochEvent finishEpoch(double epochSeconds);
  /// Adds one step's scores to the running means. Throws DivergenceError naming the step
  /// for a non-finite loss (before anything of the step is recorded).
  void recordScores(const std::vector<StepScore>& scores, const StepScore& ensembleScore,
                    const PendingStep& step);
  /// Moves the position on by one step of `seconds`.
  void advance(double seconds);
  /// Ends the run at a step boundary on request: checkpoint, summary, event.
  RunFinishedEvent stop(TrainingObserver* observer);
  void checkpoint(TrainingObserver* observer);
  nlohmann::json summaryJson(RunStatus status, const std::string& message) const;
  void writeSummary(RunStatus status, const std::string& message) const;
};

void Trainer::Impl::prepare() {
  config.validate();
  group.validate();
  const int cudaCount = cudaDeviceCount();
  if (group.distributed() && config.devices.empty()) {
    // One replica per process unless told otherwise: this host's GPU for the rank, or the CPU.
    config.devices = cudaCount > 0 ? "cuda:" + std::to_string(group.localRank % cudaCount) : "cpu";
  }
  if (group.distributed() && config.mode == TrainingMode::Single) {
    throw ConfigError("single mode trains one model in one process; across " + std::to_string(group.worldSize) +
                      " processes use --mode ensemble or data-parallel");
  }
  devices = parseDeviceSpec(config.effectiveDevices(cudaCount), cudaCount, whyNoCudaDevice());
  if (config.mode == TrainingMode::Single && devices.size() != 1) {
    throw ConfigError("single mode trains one model on one device, but the device spec '" +
                      config.effectiveDevices(cudaCount) + "' names " +
                      std::to_string(devices.size()) +
                      " replicas; use --mode ensemble or data-parallel, or one device");
  }
  if (config.precision == "tf32" && std::none_of(devices.begin(), devices.end(), [](const DeviceRef& d) {
        return d.kind == DeviceRef::Kind::Cuda;
      })) {
    throw ConfigError("precision tf32 changes how NVIDIA GPUs multiply matrices; this run has no CUDA device (" +
                      formatDevices(devices) + "). Use --precision fp32, or bf16 (autocast, also on the CPU)");
  }
  const int64_t groupReplicas = int64_t(devices.size()) * group.worldSize;
  if (dataParallel() && config.batchSize % groupReplicas != 0) {
    throw ConfigError("data-parallel splits the batch evenly: batch size " +
                      std::to_string(config.batchSize) + " is not a multiple of the " +
                      std::to_string(groupReplicas) + " replicas");
  }
  if (!data) {
    data = std::make_shared<DatasetPair>(loadDataset(config.dataset, config.trainLimit, config.testLimit));
  } else if (config.trainLimit > 0 || config.testLimit > 0) {  // data handed in whole
    auto limited = std::make_shared<DatasetPair>(*data);
    limited->train = limited->train.firstSamples(config.trainLimit);
    limited->test = limited->test.firstSamples(config.testLimit);
    data = limited;
  }
  if (config.batchSize > data->train.size()) {
    throw ConfigError("batch size " + std::to_string(config.batchSize) + " is larger than the " +
                      std::to_string(data->train.size()) +
                      " training samples; use a smaller --batch-size or a larger --train-limit");
  }
  sampler = std::make_unique<EpochSampler>(config.seed, data->train.size(), config.batchSize);
  ModelInput input;
  input.channels = data->train.images.size(1);
  input.height = data->train.height();
  input.width = data->train.width();
  input.classes = data->train.classes;
  checkMemoryBudget(input);
  if (group.distributed()) {
    // Every rank must train the same experiment; only the devices are its own.
    nlohmann::json shared = config.toJson();
    shared.erase("devices");
    communicator = connectProcessGroup(group, int(devices.size()), devices.front().str(), shared);
  } else if (std::vector<int> gpus = distinctGpus(devices); ncclAvailable() && gpus.size() > 1) {
    communicator = makeNcclCommunicator(gpus, group.timeoutSeconds);  // like pmap's pmean
  } else {
    communicator = std::make_unique<LocalCommunicator>(int(devices.size()));
  }
  for (std::size_t r = 0; r < devices.size(); ++r) {
    // Ensemble members get their own seeds (by their index in the whole group);
    // data-parallel replicas share member 0's so they start identical (and single mode
    // starts like member 0 of an ensemble).
    const std::uint64_t index = dataParallel() ? 0 : std::uint64_t(communicator->firstReplica()) + r;
    replicas.push_back(makeReplica(config.model, input, devices[r],
                                   deriveSeed(config.seed, SeedStream::Member, index),
                                   config.learningRate, config.momentum));
  }
  if (config.memberForm == "stacked") stackMembers();
  workers = std::make_unique<ReplicaWorkers>(stacked ? 1 : replicaThreads(devices));
  useCallerThreadForBlas();
  resetAccumulators(state.window);
  resetAccumulators(state.epochTotals);
}

void Trainer::Impl::checkMemoryBudget(const ModelInput& input) const {
  if (config.memoryBudgetMb <= 0) return;
  const int cpuReplicas = int(std::count_if(devices.begin(), devices.end(),
                                            [](const DeviceRef& d) { return d.kind == DeviceRef::Kind::Cpu; }));
  if (cpuReplicas == 0) return;
  // Storage, not element counts: a limited split is a view that keeps the whole file alive.
  const auto bytesOf = [](const Dataset& split) {
    return std::uint64_t(split.images.storage().nbytes()) + std::uint64_t(split.labels.storage().nbytes());
  };
  const int64_t batchPerReplica =
      dataParallel() ? config.batchSize / (int64_t(devices.size()) * group.worldSize) : config.batchSize;
  const MemoryEstimate estimate =
      estimateCpuMemory(config.model, input, batchPerReplica, config.evalBatchSize, cpuReplicas,
                        bytesOf(data->train) + bytesOf(data->test),
                        // stacked members step as one network: all their activations at once
                        config.memberForm == "stacked" ? cpuReplicas : replicaThreads(devices));
  const std::uint64_t budget = std::uint64_t(config.memoryBudgetMb) << 20;
  if (estimate.totalBytes() <= budget) return;
  throw ConfigError("this run needs about " + formatBytes(estimate.totalBytes()) + " of memory (dataset " +
                    formatBytes(estimate.datasetBytes) + ", " + std::to_string(cpuReplicas) + " replica(s) of " +
                    formatBytes(estimate.modelStateBytes) + ", a step at batch " + std::to_string(batchPerReplica) +
                    " " + formatBytes(estimate.stepBytes) + ", evaluation " + formatBytes(estimate.evaluationBytes) +
                    "), more than its memory budget of " +
                    formatBytes(budget) + "; use a smaller --batch-size or --eval-batch-size, fewer --devices, "
                    "or raise --memory-budget");
}

const DeviceCopy& Trainer::Impl::onDevice(std::map<std::string, DeviceCopy>& copies,
                                          const Dataset& split, const torch::Device& device) {
  const std::string key = device.str();
  auto it = copies.find(key);
  if (it == copies.end()) {
    it = copies.emplace(key, DeviceCopy{split.images.to(device), split.labels.to(device)}).first;
  }
  return it->second;
}

void Trainer::Impl::trainStep(const std::vector<int64_t>& permutation) {
  const int64_t begin = state.stepInEpoch * config.batchSize;
  const torch::Tensor indices =
      torch::from_blob(const_cast<int64_t*>(permutation.data()) + begin, {config.batchSize},
                       torch::kInt64);
  pending.push_back({dataParallel() ? dataParallelStep(indices) : ensembleStep(indices),
                     state.globalStep + 1, state.epoch + 1});
}

void Trainer::Impl::flushScores() {
  if (pending.empty()) return;
  std::vector<torch::Tensor> rows;
  for (const PendingStep& step : pending) rows.push_back(step.rows.to(pending.front().rows.device()));
  const torch::Tensor values = torch::stack(rows).cpu();  // the one wait for the device
  const auto table = values.accessor<double, 3>();
  const std::vector<PendingStep> steps = std::move(pending);
  pending.clear();
  const std::size_t localRows = replicas.size();
  for (std::size_t s = 0; s < steps.size(); ++s) {
    std::vector<StepScore> local;
    for (std::size_t r = 0; r < localRows; ++r) {
      local.push_back({table[int64_t(s)][int64_t(r)][0], int64_t(table[int64_t(s)][int64_t(r)][1]),
                       int64_t(table[int64_t(s)][int64_t(r)][2])});
    }
    if (!dataParallel()) {
      const std::vector<StepScore> scores = exchangeScores(local);
      const int64_t ensembleRow = int64_t(localRows);
      const StepScore ensembleScore =
          worldReplicas() == 1 ? scores.front()
                               : StepScore{table[int64_t(s)][ensembleRow][0], int64_t(table[int64_t(s)][ensembleRow][1]),
                                           int64_t(table[int64_t(s)][ensembleRow][2])};
      recordScores(scores, ensembleScore, steps[s]);
      continue;
    }
    // One model: its loss is the mean over the equal shards, its hits their sum.
    const std::vector<StepScore> shards = exchangeScores(local);
    StepScore total{0, 0, config.batchSize};
    for (const StepScore& shard : shards) {
      total.loss += shard.loss / double(shards.size());
      total.correct += shard.correct;
    }
    recordScores({total}, total, steps[s]);
  }
}

std::vector<StepScore> Trainer::Impl::exchangeScores(const std::vector<StepScore>& local) {
  if (!distributed()) return local;
  std::vector<torch::Tensor> rows;
  for (const StepScore& score : local) {
    rows.push_back(torch::tensor({score.loss, double(score.correct), double(score.samples),
                                  localStopRequest ? 1.0 : 0.0},
                                 torch::kFloat64));
  }
  std::vector<StepScore> all;
  for (const torch::Tensor& row : communicator->allGather(rows)) {
    const auto values = row.accessor<double, 1>();
    all.push_back({values[0], int64_t(values[1]), int64_t(values[2])});
    stopAgreed = stopAgreed || values[3] > 0;
  }
  return all;
}

std::vector<TensorDict> Trainer::Impl::gatherMembers(const std::vector<TensorDict>& local) {
  if (!distributed()) return local;
  std::vector<TensorDict> all(worldReplicas());
  for (const auto& entry : local.front()) {
    std::vector<torch::Tensor> values;
    for (const TensorDict& dict : local) values.push_back(dict.at(entry.key()));
    const std::vector<torch::Tensor> gathered = communicator->allGather(values);
    for (std::size_t m = 0; m < all.size(); ++m) all[m].insert(entry.key(), gathered[m]);
  }
  return all;
}

torch::Tensor Trainer::Impl::ensembleStep(const torch::Tensor& indices) {
  // Every member sees the same batch, drawn once per device.
  std::map<std::string, Batch> batches;
  for (auto& replica : replicas) {
    const std::string key = replica.device.str();
    if (!batches.count(key)) {
      const DeviceCopy& copy = onDevice(trainCopies, data->train, replica.device);
      const torch::Tensor local = indices.to(replica.device);
      batches[key] = {toModelInput(copy.images.index_select(0, local)),
                      copy.labels.index_select(0, local)};
    }
  }
  std::vector<torch::Tensor> probabilities(replicas.size());
  std::vector<torch::Tensor> rows = trainMembers(batches, probabilities);
  const torch::Device first = replicas.front().device;
  for (torch::Tensor& row : rows) row = row.to(first);
  if (worldReplicas() > 1) {
    communicator->allReduceMean(probabilities);  // the ensemble's prediction on this batch
    const torch::Tensor& labels = batches[first.str()].labels;
    const torch::Tensor& mean = probabilities.front();
    const torch::Tensor trueClass = mean.gather(1, labels.unsqueeze(1)).squeeze(1);
    rows.push_back(scoreRow(-trueClass.clamp_min(1e-12).log().mean(), mean.argmax(1).eq(labels).sum(),
                            config.batchSize));
  }
  return torch::stack(rows);
}

std::vector<torch::Tensor> Trainer::Impl::trainMembers(const std::map<std::string, Batch>& batches,
                                                       std::vector<torch::Tensor>& probabilities) {
  if (stacked) return trainStacked(batches.begin()->second, probabilities);
  std::vector<torch::Tensor> rows(replicas.size());
  workers->forEach(replicas.size(), [&](std::size_t r) {
    Replica& replica = replicas[r];
    const Batch& batch = batches.at(replica.device.str());
    const AutocastScope autocast(config.precision, replica.device.is_cuda());
    replica.optimizer->zeroGrad();
    const torch::Tensor logits = replica.model->forward(batch.inputs).to(torch::kFloat32);
    const torch::Tensor loss = F::cross_entropy(logits, batch.labels);
    loss.backward();
    replica.optimizer->step();
    probabilities[r] = torch::softmax(logits.detach(), 1);
    rows[r] = scoreRow(loss, logits.argmax(1).eq(batch.labels).sum(), config.batchSize);
  });
  return rows;
}

std::vector<torch::Tensor> Trainer::Impl::trainStacked(const Batch& batch,
                                                       std::vector<torch::Tensor>& probabilities) {
  const AutocastScope autocast(config.precision, batch.inputs.is_cuda());
  stackedOptimizer->zeroGrad();
  const torch::Tensor logits = stacked->forward(batch.inputs).to(torch::kFloat32);  // [members, batch, classes]
  const int64_t members = logits.size(0);
  // Each member's mean loss; their sum's gradient is each member's own.
  const torch::Tensor losses =
      F::cross_entropy(logits.flatten(0, 1), batch.labels.repeat({members}),
                       F::CrossEntropyFuncOptions().reduction(torch::kNone))
          .view({members, -1})
          .mean(1);
  losses.sum().backward();
  stackedOptimizer->step();
  const torch::Tensor softmax = torch::softmax(logits.detach(), 2);
  const torch::Tensor hits = logits.argmax(2).eq(batch.labels.unsqueeze(0)).sum(1);
  std::vector<torch::Tensor> rows;
  for (int64_t m = 0; m < members; ++m) {
    probabilities[std::size_t(m)] = softmax[m];
    rows.push_back(scoreRow(losses[m], hits[m], config.batchSize));
  }
  return rows;
}

void Trainer::Impl::stackMembers() {
  for (const DeviceRef& device : devices) {
    if (device.str() != devices.front().str()) {
      throw ConfigError("member form 'stacked' trains the members of one device as one network, but these "
                        "members are spread over " + formatDevices(devices) +
                        "; give them one device (e.g. --devices cpu*4 or cuda:0*4) or use --member-form separate");
    }
  }
  std::vector<std::shared_ptr<ClassifierImpl>> models;
  std::vector<SgdMomentum*> optimizers;
  for (Replica& replica : replicas) {
    models.push_back(replica.model);
    optimizers.push_back(replica.optimizer.get());
  }
  stacked = StackedCnn(models);
  stackedOptimizer = std::make_unique<SgdMomentum>(stacked->parameters(), config.learningRate, config.momentum);
  stacked->shareMomentum(*stackedOptimizer, optimizers);
}

torch::Tensor Trainer::Impl::dataParallelStep(const torch::Tensor& indices) {
  const int64_t shard = config.batchSize / int64_t(worldReplicas());
  std::vector<torch::Tensor> rows(replicas.size());
  std::vector<torch::Tensor> flatGradients(replicas.size());
  std::vector<const DeviceCopy*> copies;
  for (const Replica& replica : replicas) copies.push_back(&onDevice(trainCopies, data->train, replica.device));
  workers->forEach(replicas.size(), [&](std::size_t r) {
    Replica& replica = replicas[r];
    const DeviceCopy& copy = *copies[r];
    const int64_t globalIndex = communicator->firstReplica() + int64_t(r);
    const torch::Tensor local = indices.narrow(0, globalIndex * shard, shard).to(replica.device);
    const torch::Tensor labels = copy.labels.index_select(0, local);
    const AutocastScope autocast(config.precision, replica.device.is_cuda());
    replica.optimizer->zeroGrad();
    const torch::Tensor logits =
        replica.model->forward(toModelInput(copy.images.index_select(0, local))).to(torch::kFloat32);
    const torch::Tensor loss = F::cross_entropy(logits, labels);
    loss.backward();
    std::vector<torch::Tensor> grads;
    for (const auto& p : replica.model->parameters()) grads.push_back(p.grad().flatten());
    flatGradients[r] = torch::cat(grads);  // one all-reduce per step, not per tensor
    rows[r] = scoreRow(loss, logits.argmax(1).eq(labels).sum(), shard);
  });
  communicator->allReduceMean(flatGradients);
  workers->forEach(replicas.size(), [&](std::size_t r) {
    int64_t offset = 0;
    for (auto& p : replicas[r].model->parameters()) {
      p.mutable_grad().copy_(flatGradients[r].narrow(0, offset, p.numel()).view_as(p));
      offset += p.numel();
    }
    replicas[r].optimizer->step();
  });
  for (torch::Tensor& row : rows) row = row.to(replicas.front().device);
  return torch::stack(rows);
}

EvaluationResult Trainer::Impl::evaluate() {
  const std::size_t models = dataParallel() ? 1 : replicas.size();  // data-parallel replicas are one model
  std::vector<const DeviceCopy*> copies;
  for (std::size_t r = 0; r < models; ++r) copies.push_back(&onDevice(testCopies, data->test, replicas[r].device));
  std::vector<torch::Tensor> probabilities(models);
  // Each model at --eval-batch-size whatever runs beside it, so the scores do not depend
  // on the machine's core count (LibTorch's kernels may round differently per batch size).
  workers->forEach(models, [&](std::size_t r) {
    const AutocastScope autocast(config.precision, replicas[r].device.is_cuda());
    probabilities[r] = predictProbabilities(*replicas[r].model, copies[r]->images, config.evalBatchSize);
  });
  if (dataParallel()) return evaluateMembers(probabilities, data->test.labels, soloCommunicator);
  // Every process scores every member (cheap next to training), so all agree on the result.
  const std::vector<torch::Tensor> everyMember = communicator->allGather(probabilities);
  LocalCommunicator onThisHost(int(everyMember.size()));
  return evaluateMembers(everyMember, data->test.labels, onThisHost);
}

void Trainer::Impl::logStep(TrainingObserver* observer, bool writeRow, int64_t sessionSteps,
                            double sessionSeconds) {
  StepEvent event;
  event.epoch = state.epoch + 1;
  event.epochs = config.epochs;
  event.stepInEpoch = state.stepInEpoch;
  event.stepsPerEpoch = sampler->stepsPerEpoch();
  event.globalStep = state.globalStep;
  event.totalSteps = config.epochs * sampler->stepsPerEpoch();
  event.elapsedSeconds = state.trainSeconds;
  event.imagesPerSecond = state.trainSeconds > 0 ? double(state.samplesTrained) / state.trainSeconds : 0;
  const double perStep = sessionSteps > 0 ? sessionSeconds / double(sessionSteps) : 0;
  event.etaSeconds = perStep * double(event.totalSteps - event.globalStep);
  event.logged = writeRow;
  if (writeRow) {
    for (std::size_t m = 0; m < memberCount(); ++m) event.members.push_back(state.window[m].mean());
    event.ensemble = state.window.back().mean();
    for (std::size_t row = 0; row < reportedRows() && metrics; ++row) {
      const std::size_t slot = row < memberCount() ? row : memberCount();
      const ModelScore score = state.window[slot].mean();
      metrics->write({state.globalStep, state.epoch + 1, memberName(slot), score.loss,
                      score.accuracy, std::nullopt, std::nullopt});
    }
    if (metrics) state.metricsBytes = metrics->flush();
    resetAccumulators(state.window);
  }
  if (observer) observer->onStep(event);
}

EpochEvent Trainer::Impl::finishEpoch(double epochSeconds) {
  EpochEvent event;
  event.epoch = state.epoch + 1;
  event.epochs = config.epochs;
  event.globalStep = state.globalStep;
  event.epochSeconds = epochSeconds;
  event.test = evaluate();
  for (std::size_t m = 0; m < memberCount(); ++m) event.train.push_back(state.epochTotals[m].mean());
  event.ensembleTrain = state.epochTotals.back().mean();
  for (std::size_t row = 0; row < reportedRows() && metrics; ++row) {
    const bool member = row < memberCount();
    const ModelScore train = member ? event.train[row] : event.ensembleTrain;
    const ModelScore test = member ? event.test.members[row]
                                   : ModelScore{event.test.ensemble.nll, event.test.ensemble.accuracy};
    metrics->write({state.globalStep, state.epoch + 1, memberName(member ? row : memberCount()),
                    train.loss, train.accuracy, test.loss, test.accuracy});
  }
  if (metrics) state.metricsBytes = metrics->flush();
  state.lastEvaluation = event.test;
  state.epoch += 1;
  state.stepInEpoch = 0;
  resetAccumulators(state.epochTotals);
  return event;
}

void Trainer::Impl::recordScores(const std::vector<StepScore>& scores, const StepScore& ensembleScore,
                                 const PendingStep& step) {
  for (std::size_t m = 0; m < scores.size(); ++m) {
    if (std::isfinite(scores[m].loss)) continue;
    std::ostringstream lr;
    lr << config.learningRate;
    throw DivergenceError(
        "the training loss of " + (memberCount() > 1 ? "member " + std::to_string(m) : std::string("the model")) +
        " became " + (std::isnan(scores[m].loss) ? "NaN" : "infinite") + " at step " +
        std::to_string(step.globalStep) + " (epoch " + std::to_string(step.epoch) +
        "); the learning rate " + lr.str() + " is probably too high, try a smaller --lr. The metrics so "
        "far and the last good checkpoint are kept in " + directory.path());
  }
  for (std::size_t m = 0; m < scores.size(); ++m) {
    state.window[m].add(scores[m].loss, scores[m].correct, scores[m].samples);
    state.epochTotals[m].add(scores[m].loss, scores[m].correct, scores[m].samples);
  }
  state.window.back().add(ensembleScore.loss, ensembleScore.correct, ensembleScore.samples);
  state.epochTotals.back().add(ensembleScore.loss, ensembleScore.correct, ensembleScore.samples);
}

void Trainer::Impl::advance(double seconds) {
  state.stepInEpoch += 1;
  state.globalStep += 1;
  state.trainSeconds += seconds;
  state.samplesTrained += samplesPerStep();
}

RunFinishedEvent Trainer::Impl::stop(TrainingObserver* observer) {
  checkpoint(observer);
  communicator->finish();
  RunFinishedEvent finished;
  finished.runDirectory = directory.path();
  finished.status = RunStatus::Stopped;
  finished.message = "stopped at step " + std::to_string(state.globalStep) +
                     "; resume with: ensemble-lab-cli resume --run " + directory.path();
  writeSummary(finished.status, finished.message);
  if (observer) observer->onRunFinished(finished);
  return finished;
}

void Trainer::Impl::checkpoint(TrainingObserver* observer) {
  flushScores();  // a checkpoint holds every step's numbers, and no diverged weights
  if (lastCheckpointStep == state.globalStep) return;
  CheckpointData checkpointData;
  checkpointData.config = config.toJson();
  checkpointData.state = state.toJson();
  if (dataParallel()) {  // the replicas are one model: replica 0 holds it
    checkpointData.weights.push_back(replicas.front().weights());
    checkpointData.optimizer.push_back(replicas.front().optimizerState());
  } else {
    std::vector<TensorDict> weights, optimizer;
    for (const Replica& replica : replicas) {
      weights.push_back(replica.weights());
      optimizer.push_back(replica.optimizerState());
    }
    checkpointData.weights = gatherMembers(weights);
    checkpointData.optimizer = gatherMembers(optimizer);
  }
  const int64_t previous = lastCheckpointStep;
  lastCheckpointStep = state.globalStep;
  if (!leader()) return;
  std::string path;
  try {
    path = writeCheckpoint(directory.checkpointsPath(), state.globalStep, checkpointData);
  } catch (const IoError& error) {
    throw IoError("the checkpoint of step " + std::to_string(state.globalStep) + " failed: " + error.what() +
                  (previous >= 0 ? "; the checkpoint of step " + std::to_string(previous) +
                                       " is intact, and `ensemble-lab-cli resume --run " + directory.path() +
                                       "` continues from it"
                                 : std::string("; no checkpoint had been written yet")));
  }
  if (observer) observer->onCheckpoint({path, state.globalStep});
}

nlohmann::json Trainer::Impl::summaryJson(RunStatus status, const std::string& message) const {
  nlohmann::json summary{{"version", ENSEMBLELAB_VERSION},
                         {"status", runStatusName(status)},
                         {"message", message},
                         {"mode", modeName(config.mode)},
                         {"model", config.model},
                         {"dataset", config.dataset},
                         {"devices", formatDevices(devices)},
                         {"replicas", worldReplicas()},
                         {"processes", communicator->processCount()},
                         {"lr", config.learningRate},
                         {"momentum", config.momentum},
                         {"batch_size", config.batchSize},
                         {"epochs", config.epochs},
                         {"seed", config.seed},
                         {"epochs_completed", state.epoch},
                         {"steps_completed", state.globalStep},
                         {"train_seconds", state.trainSeconds},
                         {"seconds_per_epoch", state.epoch > 0 ? state.trainSeconds / double(state.epoch) : 0.0},
                         {"images_per_second",
                          state.trainSeconds > 0 ? double(state.samplesTrained) / state.trainSeconds : 0.0}};
  if (state.lastEvaluation) {
    summary.update(toJson(*state.lastEvaluation));
  } else {
    summary["members"] = nlohmann::json::array();
    summary["ensemble"] = nullptr;
  }
  return summary;
}

void Trainer::Impl::writeSummary(RunStatus status, const std::string& message) const {
  if (!leader()) return;
  RunDirectory::writeJson(directory.summaryPath(), summaryJson(status, message));
}

Trainer::Trainer(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Trainer::~Trainer() = default;

std::unique_ptr<Trainer> Trainer::create(ExperimentConfig config, std::string runDirectory,
                                         std::shared_ptr<const DatasetPair> data,
                                         const ProcessGroupOptions& group) {
  auto impl = std::make_unique<Impl>();
  impl->config = std::move(config);
  impl->group = group;
  impl->directory = RunDirectory(std::move(runDirectory));
  impl->data = std::move(data);
  impl->prepare();
  // Record the devices actually used, so config.json replays the same run.
  impl->config.devices = formatDevices(impl->devices);
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

std::unique_ptr<Trainer> Trainer::open(const std::string& runDirectory,
                                       const std::string& datasetOverride,
                                       std::shared_ptr<const DatasetPair> data,
                                       const ProcessGroupOptions& group) {
  const RunDirectory directory(runDirectory);
  const std::string checkpointDir = latestCheckpoint(directory.checkpointsPath());
  CheckpointData saved = readCheckpoint(checkpointDir);
  ExperimentConfig config = ExperimentConfig::fromJson(saved.config, checkpointDir + "/manifest.json");
  if (!datasetOverride.empty()) config.dataset = datasetOverride;
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->directory = directory;
  impl->data = std::move(data);
  impl->group = group;
  impl->prepare();
  impl->state = RunState::fromJson(saved.state, checkpointDir);
  // A manifest that parses can still describe another run (or be damaged): its position
  // must fit this run's epochs and steps, its running means this run's models.
  const RunState& state = impl->state;
  const int64_t steps = impl->sampler->stepsPerEpoch();
  const std::size_t slots = impl->memberCount() + 1;
  const bool positionFits = !datasetOverride.empty() ||
                            (state.epoch >= 0 && state.epoch <= config.epochs && state.stepInEpoch >= 0 &&
                             state.stepInEpoch < steps && state.globalStep == state.epoch * steps + state.stepInEpoch);
  if (!positionFits || state.window.size() != slots || state.epochTotals.size() != slots) {
    throw CheckpointError(checkpointDir + "/manifest.json holds a run state that does not fit this run (epoch " +
                          std::to_string(state.epoch) + ", step " + std::to_string(state.stepInEpoch) + " of " +
                          std::to_string(steps) + " per epoch, global step " + std::to_string(state.globalStep) +
                          ", " + std::to_string(state.window.size()) + " score slots for " + std::to_string(slots) +
                          "); the checkpoint is damaged or belongs to another run");
  }
  if (saved.weights.size() != impl->memberCount()) {
    throw CheckpointError(checkpointDir + " holds " + std::to_string(saved.weights.size()) +
                          " models but the run has " + std::to_string(impl->memberCount()));
  }
  for (std::size_t r = 0; r < impl->replicas.size(); ++r) {
    // Data-parallel saves one model; ensemble members sit at their index in the group.
    const std::size_t source = impl->dataParallel() ? 0 : std::size_t(impl->communicator->firstReplica()) + r;
    impl->replicas[r].load(saved.weights[source], saved.optimizer[source],
                           checkpointDir + "/member-" + std::to_string(source) + ".pt");
  }
  impl->resumed = true;
  impl->lastCheckpointStep = impl->state.globalStep;
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

RunFinishedEvent Trainer::run(TrainingObserver* observer, RunControl* control) {
  Impl& d = *m_impl;
  const IntraOpThreads threads(d.intraOpThreadCount());
  const Tf32Scope tf32(d.config.precision);
  RunFinishedEvent finished;
  finished.runDirectory = d.directory.path();
  try {
    if (d.leader()) {
      d.directory.create();
      if (d.resumed) removeIncompleteCheckpoints(d.directory.checkpointsPath());
      if (!d.resumed) RunDirectory::writeJson(d.directory.configPath(), d.config.toJson());
      // A resumed run keeps the rows its checkpoint had seen (dropping any written after
      // it, or torn by a crash); a new run starts an empty file.
      d.metrics = std::make_unique<MetricsCsvWriter>(d.directory.metricsPath(),
                                                     std::uint64_t(d.resumed ? d.state.metricsBytes : 0));
      d.state.metricsBytes = d.metrics->flush();
    }
    if (observer) {
      observer->onRunStarted({d.directory.path(), modeName(d.config.mode), d.config.model,
                              formatDevices(d.devices), int(d.worldReplicas()), d.config.epochs,
                              d.sampler->stepsPerEpoch(), d.state.globalStep});
    }
    int64_t sessionSteps = 0;
    double sessionSeconds = 0;
    for (auto& replica : d.replicas) replica.model->train();
    while (d.state.epoch < d.config.epochs) {
      const std::vector<int64_t> permutation = d.sampler->permutation(d.state.epoch);
      double epochSeconds = 0;
      while (d.state.stepInEpoch < d.sampler->stepsPerEpoch()) {
        if (control && !d.distributed()) {  // a paused rank would stall the others: no pause there
          if (control->pauseRequested() && observer) observer->onPaused(true);
          if (control->waitWhilePaused() && observer) observer->onPaused(false);
        }
        d.localStopRequest = control && control->stopRequested();
        // Across processes the stop is agreed through the last step's exchange, so every
        // rank stops at the same step and checkpoints together.
        if (d.distributed() ? d.stopAgreed : d.localStopRequest) return d.stop(observer);
        const auto stepStart = Clock::now();
        d.trainStep(permutation);
        const int64_t step = d.state.globalStep + 1;
        const bool endOfEpoch = d.state.stepInEpoch + 1 == d.sampler->stepsPerEpoch();
        const bool logged = endOfEpoch || step % d.config.logEvery == 0;
        const bool checkpointDue = d.config.checkpointEvery > 0 && step % d.config.checkpointEvery == 0;
        // Across processes the scores (and an agreed stop) are exchanged every step.
        if (logged || checkpointDue || d.distributed() || d.pending.size() >= kMaxPendingSteps) d.flushScores();
        const double seconds = std::chrono::duration<double>(Clock::now() - stepStart).count();
        d.advance(seconds);
        epochSeconds += seconds;
        sessionSteps += 1;
        sessionSeconds += seconds;
        d.logStep(observer, logged, sessionSteps, sessionSeconds);
        if (endOfEpoch) {
          const EpochEvent epoch = d.finishEpoch(epochSeconds);
          d.checkpoint(observer);
          d.writeSummary(RunStatus::Running, "");
          // Observers hear of the epoch once its checkpoint and summary are on disk.
          if (observer) observer->onEpoch(epoch);
          break;  // finishEpoch moved the state on to the next epoch
        } else if (checkpointDue) {
          d.checkpoint(observer);
        }
      }
    }
    finished.status = RunStatus::Completed;
    d.writeSummary(finished.status, "");
    d.communicator->finish();
  } catch (const DistributedError& error) {  // the group is broken: nothing to tell it
    finished.status = RunStatus::Failed;
    finished.message = error.what();
  } catch (...) {
    finished.status = RunStatus::Failed;
    finished.message = describeCurrentException();
    d.communicator->announceFailure(finished.message);
  }
  if (finished.status == RunStatus::Failed) {
    try {
      d.writeSummary(finished.status, finished.message);
    } catch (const Error&) {
      // The disk may be what failed; the message still reaches the user below.
    }
  }
  if (observer) observer->onRunFinished(finished);
  return finished;
}

EvaluationResult Trainer::evaluate() {
  const IntraOpThreads threads(m_impl->intraOpThreadCount());
  return m_impl->evaluate();
}
const ExperimentConfig& Trainer::config() const { return m_impl->config; }
const std::string& Trainer::runDirectory() const { return m_impl->directory.path(); }
std::string Trainer::devices() const { return formatDevices(m_impl->devices); }
int64_t Trainer::stepsPerEpoch() const { return m_impl->sampler->stepsPerEpoch(); }
int64_t Trainer::globalStep() const { return m_impl->state.globalStep; }
int Trainer::processRank() const { return m_impl->communicator->processRank(); }

std::string runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Running: return "running";
    case RunStatus::Completed: return "completed";
    case RunStatus::Stopped: return "stopped";
    case RunStatus::Failed: return "failed";
  }
  return "unknown";
}

}  // namespace ensemble
