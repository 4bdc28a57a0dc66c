// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Evaluation of members and of their ensemble on a labelled set.
#include <torch/types.h>

#include <vector>

#include "core/metrics/EvaluationResult.h"
#include "core/metrics/Predictions.h"

namespace ensemble {

class ClassifierImpl;
class Communicator;
class ReplicaWorkers;
class SplitOnDevices;
struct ExperimentConfig;
struct Replica;

/// Images as uint8 [N, C, H, W] (any device) to the float [0, 1] input models take.
torch::Tensor toModelInput(const torch::Tensor& images);

/// Softmax probabilities [N, K] of `model` (in eval mode, without gradients) for uint8
/// `images` on the model's device, computed `batchSize` images at a time.
torch::Tensor predictProbabilities(ClassifierImpl& model, const torch::Tensor& images,
                                   int64_t batchSize);

/// The softmax probabilities [N, K] of each of `replicas` (CNN members on one device), with
/// the members evaluated as one stacked network (StackedCnnSnapshot), `batchSize` images at
/// a time: what predictProbabilities gives each, to float rounding. predictRun uses it for
/// stacked members on a GPU, where one forward for all members replaces one each; on the
/// CPU the members side by side on the cores are faster (3,050 vs 2,300 images/s, cpu*4).
std::vector<torch::Tensor> predictStackedProbabilities(const std::vector<Replica>& replicas, const torch::Tensor& images,
                                                       int64_t batchSize);

/// Scores each member's probabilities, averages them through `communicator` into the
/// ensemble's, and scores that; the ensemble-size curve samples its subsets with `seed`
/// where there are too many to score all. `memberProbs` are on their replicas' devices;
/// `labels` on the CPU.
EvaluationResult evaluateMembers(const std::vector<torch::Tensor>& memberProbs, const torch::Tensor& labels,
                                 Communicator& communicator, std::uint64_t seed);

/// Every model's probabilities from this process's `local` ones: across processes gathered
/// from every process of `communicator` (on the CPU, in member order); in a single process
/// `local` as it is, each on the device that computed it.
std::vector<torch::Tensor> gatherModelsProbabilities(Communicator& communicator,
                                                     const std::vector<torch::Tensor>& local);

/// The softmax probabilities [N, K] of the one model that data-parallel `replicas` hold:
/// every replica of the group of `communicator` evaluates a contiguous run of whole
/// `batchSize` batches (this process's side by side on `workers`), with replica 0's buffers
/// (BatchNorm statistics), so the result is the bits replica 0 alone gives
/// (predictProbabilities), in a fraction of the time. In one process on replica 0's device;
/// across processes gathered into every process, on the CPU.
torch::Tensor predictOneModel(const ExperimentConfig& config, std::vector<Replica>& replicas, SplitOnDevices& images,
                              int64_t batchSize, ReplicaWorkers& workers, Communicator& communicator);

/// Every model's softmax probabilities on `images` (each replica's copy, on its device),
/// computed side by side on `workers`: one per member of the whole group, gathered from
/// every process of `communicator` so that every process holds them all
/// (gatherModelsProbabilities: in one process they stay on their devices), or for
/// data-parallel the one model's (predictOneModel; its replicas are one model).
std::vector<torch::Tensor> predictRun(const ExperimentConfig& config, std::vector<Replica>& replicas,
                                      SplitOnDevices& images, ReplicaWorkers& workers, Communicator& communicator);

/// `memberProbs` (predictRun's) copied to the host with their mean, beside `labels`.
Predictions tabulatePredictions(const std::vector<torch::Tensor>& memberProbs, const torch::Tensor& labels);

/// A run's evaluation on its test split (`test`, `labels`): predictRun, then every member
/// and their ensemble scored; every process returns the same result.
EvaluationResult evaluateRun(const ExperimentConfig& config, std::vector<Replica>& replicas, SplitOnDevices& test,
                             const torch::Tensor& labels, ReplicaWorkers& workers, Communicator& communicator);

}  // namespace ensemble
