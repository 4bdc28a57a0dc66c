// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/RestorableRunFile.h"

#include <filesystem>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/io/CheckpointPresence.h"
#include "core/io/RunDirectory.h"

namespace ensemble {

void requireRestorable(const RunDirectory& run, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) || !holdsACheckpoint(run.checkpointsPath())) return;
  throw IoError(path + " is missing; " + mention::resumeCommand(run.path()) +
                " writes it again from the run's last checkpoint");
}

}  // namespace ensemble
