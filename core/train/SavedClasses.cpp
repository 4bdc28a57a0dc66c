// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/SavedClasses.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/io/Checkpoint.h"

namespace ensemble {

std::optional<int64_t> savedClassCount(const CheckpointData& saved, ModelKind model) {
  if (saved.weights.empty()) return std::nullopt;
  const auto head = saved.weights.front().find(classifierHeadWeight(model));
  if (head == saved.weights.front().end() || head->value().dim() != 2) return std::nullopt;
  return head->value().size(0);
}

int64_t classesForOpenedRun(const DatasetPair& data, int64_t saved, bool evaluationOnly, const std::string& dataset) {
  const auto range = [](int64_t classes) { return "0-" + std::to_string(classes - 1); };
  if (evaluationOnly) {
    const int64_t largest = data.test.size() > 0 ? data.test.labels.max().item<int64_t>() : 0;
    if (largest >= saved) {
      throw DatasetError("the dataset " + dataset + " has test labels up to " + std::to_string(largest) +
                         ", but this run's models tell " + std::to_string(saved) + " classes apart (" + range(saved) +
                         "); evaluate it on a dataset whose labels are among those");
    }
  } else if (data.train.classes != saved) {
    throw DatasetError("the dataset " + dataset + " now holds " + std::to_string(data.train.classes) + " classes (" +
                       range(data.train.classes) + "), but this run's models were trained on " +
                       std::to_string(saved) + " (" + range(saved) +
                       "): it changed after the run began; put back the files it was trained on");
  }
  return saved;
}

}  // namespace ensemble
