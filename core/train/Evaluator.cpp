// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/Evaluator.h"

#include <torch/torch.h>

#include <algorithm>

#include "core/comm/Communicator.h"
#include "core/comm/LocalCommunicator.h"
#include "core/config/RunMode.h"
#include "core/metrics/DeviceScoring.h"
#include "core/metrics/EnsembleMetrics.h"
#include "core/models/Classifier.h"
#include "core/models/StackedCnn.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"
#include "core/train/ReplicaWorkers.h"
#include "core/train/SplitOnDevices.h"

namespace ensemble {

torch::Tensor toModelInput(const torch::Tensor& images) {
  return images.to(torch::kFloat32).div_(255.0);
}

namespace {

/// Softmax probabilities of `logitsOf` (logits with classes last) over uint8 `images`, without
/// gradients, `batchSize` images at a time, joined along the logits' image dimension `imageDim`.
template <typename Logits>
torch::Tensor probabilitiesInBatches(const torch::Tensor& images, int64_t batchSize, int64_t imageDim,
                                     const Logits& logitsOf) {
  TORCH_CHECK(batchSize > 0, "an evaluation batch of ", batchSize, " images (resolve eval_batch_size auto first)");
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> chunks;
  for (int64_t start = 0; start < images.size(0); start += batchSize) {
    const int64_t count = std::min(batchSize, images.size(0) - start);
    // float32 whatever precision the forward ran in (bf16 autocast gives bfloat16 logits)
    const torch::Tensor logits = logitsOf(toModelInput(images.narrow(0, start, count))).to(torch::kFloat32);
    chunks.push_back(torch::softmax(logits, -1));
  }
  return torch::cat(chunks, imageDim);
}

}  // namespace

torch::Tensor predictProbabilities(ClassifierImpl& model, const torch::Tensor& images,
                                   int64_t batchSize) {
  const bool wasTraining = model.is_training();
  model.eval();
  const torch::Tensor probabilities =
      probabilitiesInBatches(images, batchSize, 0, [&](const torch::Tensor& input) { return model.forward(input); });
  model.train(wasTraining);
  return probabilities;
}

std::vector<torch::Tensor> predictStackedProbabilities(const std::vector<Replica>& replicas, const torch::Tensor& images,
                                                       int64_t batchSize) {
  std::vector<std::shared_ptr<ClassifierImpl>> members;
  for (const Replica& replica : replicas) members.push_back(replica.model);
  const StackedCnnSnapshot network(members);
  // Logits [members, images, classes]: the images are dimension 1.
  return probabilitiesInBatches(images, batchSize, 1, [&](const torch::Tensor& input) { return network.forward(input); })
      .unbind(0);
}

EvaluationResult evaluateMembers(const std::vector<torch::Tensor>& memberProbs, const torch::Tensor& labels,
                                 Communicator& communicator, std::uint64_t seed) {
  std::vector<torch::Tensor> averaged;
  for (const auto& probs : memberProbs) averaged.push_back(probs.clone());
  communicator.allReduceMean(averaged);
  EvaluationResult result;
  if (scoresOnDevice(memberProbs)) {
    // On a GPU: scored there, one read-back (DeviceScoring.h).
    result = scoreOnDevice(memberProbs, averaged.front(), labels, seed);
  } else {
    result.samples = labels.size(0);
    std::vector<torch::Tensor> onHost;
    for (const auto& probs : memberProbs) {
      onHost.push_back(probs.cpu());
      result.members.push_back(scoreTest(onHost.back(), labels));
      result.memberReliability.push_back(reliabilityOf(onHost.back(), labels));
    }
    const torch::Tensor ensembleProbs = averaged.front().cpu();
    result.ensemble = scoreEnsemble(ensembleProbs, onHost, labels);
    result.ensembleReliability = reliabilityOf(ensembleProbs, labels);
    result.meanMember = meanOf(result.members);
    result.accuracyVsSize = accuracyVsEnsembleSize(onHost, labels, seed);
  }
  if (memberProbs.size() == 1) {
    // One model: the "ensemble" is that model, exactly.
    result.ensemble.nll = result.members.front().loss;
    result.ensemble.accuracy = result.members.front().accuracy;
    result.ensemble.brier = result.members.front().brier;
    result.ensemble.ece = result.members.front().ece;
    result.ensembleReliability = result.memberReliability.front();
  }
  return result;
}

std::vector<torch::Tensor> gatherModelsProbabilities(Communicator& communicator,
                                                     const std::vector<torch::Tensor>& local) {
  // One process holds every model: its probabilities stay where they were computed, so that
  // members on one GPU are scored there (DeviceScoring.h) and read back once, not copied to
  // the host one member at a time and scored by the host's loops (an H200's evaluation of 16
  // stacked members spent most of its time in those).
  if (communicator.processCount() <= 1) return local;
  return communicator.allGather(local);
}

namespace {

/// Gives every replica of this process the buffers (BatchNorm's running statistics) of the
/// group's replica 0. The replicas of a data-parallel model hold the same parameters (their
/// gradients are averaged) but each tracks running statistics over its own shards; replica
/// 0's are the model's (its checkpoint holds them, and a resumed run gives them to every
/// replica). Across processes they come through an all-gather, as float64, which holds
/// float32 statistics and int64 counts exactly; a model without buffers skips it on every
/// rank alike.
void shareReplicaZerosBuffers(std::vector<Replica>& replicas, Communicator& communicator) {
  torch::NoGradGuard noGrad;
  if (communicator.processCount() <= 1) {
    const std::vector<torch::Tensor> source = replicas.front().model->buffers();
    for (std::size_t r = 1; r < replicas.size(); ++r) {
      std::vector<torch::Tensor> target = replicas[r].model->buffers();
      for (std::size_t i = 0; i < target.size(); ++i) target[i].copy_(source[i]);
    }
    return;
  }
  if (replicas.front().model->buffers().empty()) return;
  std::vector<torch::Tensor> flat;
  for (const Replica& replica : replicas) {
    std::vector<torch::Tensor> pieces;
    for (const torch::Tensor& buffer : replica.model->buffers()) pieces.push_back(buffer.flatten().to(torch::kFloat64));
    flat.push_back(torch::cat(pieces));
  }
  const torch::Tensor replicaZeros = communicator.allGather(flat).front();
  for (Replica& replica : replicas) {
    int64_t offset = 0;
    for (torch::Tensor& buffer : replica.model->buffers()) {
      buffer.copy_(replicaZeros.narrow(0, offset, buffer.numel()).view_as(buffer));
      offset += buffer.numel();
    }
  }
}

/// The rows of the evaluation set that the group's replica `part` evaluates, of `parts`: a
/// contiguous run of whole batches, so every batch is the one a lone replica would evaluate,
/// at the same size. Parts past `parts` (more replicas than batches) are empty.
struct PartRows {
  int64_t start = 0;
  int64_t count = 0;
};
PartRows partRows(int64_t part, int64_t parts, int64_t batches, int64_t batchSize, int64_t samples) {
  if (part >= parts) return {};
  const int64_t first = batches * part / parts, last = batches * (part + 1) / parts;
  const int64_t start = first * batchSize;
  return {start, std::min(last * batchSize, samples) - start};
}

}  // namespace

torch::Tensor predictOneModel(const ExperimentConfig& config, std::vector<Replica>& replicas, SplitOnDevices& images,
                              int64_t batchSize, ReplicaWorkers& workers, Communicator& communicator) {
  TORCH_CHECK(batchSize > 0, "an evaluation batch of ", batchSize, " images (resolve eval_batch_size auto first)");
  const int64_t samples = images.on(replicas.front().device).images.size(0);
  const int64_t batches = (samples + batchSize - 1) / batchSize;
  const int64_t parts = std::min<int64_t>(communicator.worldReplicas(), std::max<int64_t>(batches, 1));
  const int64_t firstPart = communicator.firstReplica();
  const auto rowsOf = [&](int64_t part) { return partRows(part, parts, batches, batchSize, samples); };
  shareReplicaZerosBuffers(replicas, communicator);
  std::vector<const SplitCopy*> copies;  // looked up here: SplitOnDevices is not for threads
  for (const Replica& replica : replicas) copies.push_back(&images.on(replica.device));
  std::vector<torch::Tensor> slices(replicas.size());
  workers.forEach(replicas.size(), [&](std::size_t r) {
    const PartRows rows = rowsOf(firstPart + int64_t(r));
    if (rows.count == 0) return;
    const AutocastScope autocast(config.precision, replicas[r].device.is_cuda());
    slices[r] = predictProbabilities(*replicas[r].model, copies[r]->images.narrow(0, rows.start, rows.count), batchSize)
                    .to(replicas.front().device);
  });
  if (communicator.processCount() <= 1) {
    slices.resize(std::size_t(parts));  // the parts all lie here, in order
    return torch::cat(slices, 0);
  }
  // Across processes each process evaluates its replicas' parts, and an all-gather gives
  // every process the whole set: each part padded to the longest (the gather's tensors share
  // a shape), then cut back.
  int64_t longest = 0;
  for (int64_t part = 0; part < parts; ++part) longest = std::max(longest, rowsOf(part).count);
  const int64_t classes = replicas.front().input.classes;
  for (torch::Tensor& slice : slices) {
    torch::Tensor padded =
        torch::zeros({longest, classes}, torch::dtype(torch::kFloat32).device(replicas.front().device));
    if (slice.defined()) padded.narrow(0, 0, slice.size(0)).copy_(slice);
    slice = padded;
  }
  const std::vector<torch::Tensor> gathered = communicator.allGather(slices);
  std::vector<torch::Tensor> wholeSet;
  for (int64_t part = 0; part < parts; ++part) {
    wholeSet.push_back(gathered[std::size_t(part)].narrow(0, 0, rowsOf(part).count));
  }
  return torch::cat(wholeSet, 0);
}

std::vector<torch::Tensor> predictRun(const ExperimentConfig& config, std::vector<Replica>& replicas,
                                      SplitOnDevices& images, ReplicaWorkers& workers, Communicator& communicator) {
  // RunSession resolves auto already; a config built in code may still hold it.
  const bool everyGpu =
      std::all_of(replicas.begin(), replicas.end(), [](const Replica& replica) { return replica.device.is_cuda(); });
  const int64_t batchSize = evalBatchSizeFor(config.evalBatchSize, everyGpu);
  // Data-parallel: one model, evaluated by all its replicas on a part of the set each, in
  // every process of the group (replica 0 alone left the others' cores idle: 0.72x Flax
  // pmap's evaluation on cpu*2).
  if (RunMode::of(config.mode).replicasAreOneModel()) {
    return {predictOneModel(config, replicas, images, batchSize, workers, communicator)};
  }
  const std::size_t models = replicas.size();
  std::vector<const SplitCopy*> copies;
  for (std::size_t r = 0; r < models; ++r) copies.push_back(&images.on(replicas[r].device));
  // Stacked members share one device (EnsembleStep checks). Member by member, an ensemble of
  // 8 on an H200 evaluated at 30,000-53,000 images/s, a fifth of torch.compile's vmap.
  if (config.memberForm == MemberForm::Stacked && models > 1 && replicas.front().device.is_cuda()) {
    const AutocastScope autocast(config.precision, true);
    return gatherModelsProbabilities(communicator,
                                     predictStackedProbabilities(replicas, copies.front()->images, batchSize));
  }
  std::vector<torch::Tensor> probabilities(models);
  // Each model at --eval-batch-size whatever runs beside it, so the scores do not depend
  // on the machine's core count (LibTorch's kernels may round differently per batch size).
  workers.forEach(models, [&](std::size_t r) {
    const AutocastScope autocast(config.precision, replicas[r].device.is_cuda());
    probabilities[r] = predictProbabilities(*replicas[r].model, copies[r]->images, batchSize);
  });
  // Every process scores every member (cheap next to training), so all agree on the result.
  return gatherModelsProbabilities(communicator, probabilities);
}

Predictions tabulatePredictions(const std::vector<torch::Tensor>& memberProbs, const torch::Tensor& labels) {
  const auto toVector = [](const torch::Tensor& probs) {
    const torch::Tensor flat = probs.to(torch::kCPU, torch::kFloat32).contiguous().flatten();
    return std::vector<float>(flat.data_ptr<float>(), flat.data_ptr<float>() + flat.numel());
  };
  Predictions predictions;
  predictions.classes = memberProbs.front().size(1);
  const torch::Tensor cpuLabels = labels.to(torch::kCPU, torch::kInt64).contiguous();
  predictions.labels.assign(cpuLabels.data_ptr<int64_t>(), cpuLabels.data_ptr<int64_t>() + cpuLabels.numel());
  for (const torch::Tensor& p : memberProbs) predictions.members.push_back(toVector(p));
  predictions.ensemble = toVector(meanProbabilities(memberProbs));
  return predictions;
}

EvaluationResult evaluateRun(const ExperimentConfig& config, std::vector<Replica>& replicas, SplitOnDevices& test,
                             const torch::Tensor& labels, ReplicaWorkers& workers, Communicator& communicator) {
  const std::vector<torch::Tensor> everyModel = predictRun(config, replicas, test, workers, communicator);
  LocalCommunicator onThisHost(int(everyModel.size()));
  return evaluateMembers(everyModel, labels, onThisHost, config.seed);
}

}  // namespace ensemble
