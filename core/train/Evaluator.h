#pragma once
// Evaluation of members and of their ensemble on a labelled set.
#include <torch/types.h>

#include <vector>

#include "core/metrics/EvaluationResult.h"

namespace ensemble {

class ClassifierImpl;
class Communicator;

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

}  // namespace ensemble
