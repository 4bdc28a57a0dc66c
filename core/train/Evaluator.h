#pragma once
// Evaluation of members and of their ensemble on a labelled set.
#include <torch/types.h>

#include <vector>

#include "core/metrics/EvaluationResult.h"

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

/// Scores each member's probabilities, averages them through `communicator` into the
/// ensemble's, and scores that. `memberProbs` are on their replicas' devices; `labels`
/// on the CPU.
EvaluationResult evaluateMembers(const std::vector<torch::Tensor>& memberProbs,
                                 const torch::Tensor& labels, Communicator& communicator);

/// A run's evaluation on its test split (`test`, `labels`): each model's probabilities
/// side by side on `workers`, then every member and their ensemble scored. Data-parallel
/// replicas are one model (the first replica is scored); ensemble members are gathered
/// from every process of `communicator`, so every process returns the same result.
EvaluationResult evaluateRun(const ExperimentConfig& config, std::vector<Replica>& replicas, SplitOnDevices& test,
                             const torch::Tensor& labels, ReplicaWorkers& workers, Communicator& communicator);

}  // namespace ensemble
