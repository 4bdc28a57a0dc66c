// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/MemberAveraging.h"

#include <torch/torch.h>

#include "core/comm/Communicator.h"
#include "core/train/TrainingStep.h"

namespace ensemble {

torch::Tensor averageMembersAndScore(Communicator& communicator, std::vector<torch::Tensor>& probabilities,
                                     const torch::Tensor& labels) {
  communicator.allReduceMean(probabilities);
  const torch::Tensor& mean = probabilities.front();
  const torch::Tensor trueClass = mean.gather(1, labels.unsqueeze(1)).squeeze(1);
  // clamp: a member certain of a wrong class must not make the ensemble's loss infinite
  return scoreRow(-trueClass.clamp_min(1e-12).log().mean(), mean.argmax(1).eq(labels).sum(), labels.size(0));
}

}  // namespace ensemble
