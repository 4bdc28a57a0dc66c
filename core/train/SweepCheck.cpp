// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/SweepCheck.h"

#include <algorithm>
#include <map>
#include <string>

#include "core/common/Error.h"
#include "core/data/DatasetSource.h"
#include "core/train/NewRunCheck.h"
#include "core/train/RunSetup.h"

namespace ensemble {

void checkSweepJobs(const Sweep& sweep) {
  std::map<std::string, int64_t> trainSamplesOf;  // by dataset: a grid of 100 jobs on one reads one header
  for (const SweepJob& job : sweep.jobs) {
    const ExperimentConfig config = sweep.configOf(job);
    try {
      checkNewRunBeforeData(config);
      auto samples = trainSamplesOf.find(config.dataset);
      if (samples == trainSamplesOf.end()) samples = trainSamplesOf.emplace(config.dataset, trainingSampleCount(config.dataset)).first;
      const int64_t trainSamples = config.trainLimit > 0 ? std::min(config.trainLimit, samples->second) : samples->second;
      refuseBatchLargerThanTrainingSet(config, trainSamples);
    } catch (const std::exception& e) {
      throw ConfigError("sweep job " + job.name + ": " + e.what());
    }
  }
}

}  // namespace ensemble
