// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "app/cli/CliOptions.h"

namespace ensemble::cli {

/// `import --train FILE.csv --test FILE.csv --to DIR [--size ROWSxCOLUMNS]`, or
/// `import --npz ARCHIVE.npz --to DIR [--size ROWSxCOLUMNS]`
/// (core/runs/DatasetImport.h): 0 when the folder was written and loads as a dataset.
int commandImport(const CliOptions& options);

}  // namespace ensemble::cli
