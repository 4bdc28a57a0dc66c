// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/NewRunCheck.h"

#include <string>
#include <vector>

#include "core/config/RunMode.h"
#include "core/devices/DeviceSpec.h"
#include "core/train/CudaGraphsBuilt.h"
#include "core/train/RunSetup.h"

namespace ensemble {

void checkNewRunBeforeData(ExperimentConfig config, const ProcessGroupOptions& group) {
  // In RunSession::prepare's order, so the first problem named is the one train names.
  const std::vector<DeviceRef> devices = resolveRunDevices(config, group);
  checkNewEnsembleHasMembers(config.mode, group.worldSize, int64_t(devices.size()), formatDevices(devices));
  config.memberForm = resolveMemberForm(config, devices);
  resolveCudaGraphs(config, devices, group.distributed(), cudaGraphsBuilt());
  const std::size_t models = RunMode::of(config.mode).modelCount(int(devices.size()) * group.worldSize);
  const std::vector<std::string> files = initialWeightFiles(config, models);
  // Read, not only looked for: a file that is no state dict, or holds a NaN, fails here too. Whether its
  // shapes fit the model needs the dataset's image size, and is left to the run's start.
  for (const std::string& file : files) checkInitialWeightsFile(file);
}

}  // namespace ensemble
