// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads a run's metrics.csv back (the GUI reloads past runs with it). Torch-free.
#include <string>
#include <vector>

#include "core/io/MetricsCsvWriter.h"

namespace ensemble {

/// All rows of a metrics.csv. Rows that are cut short (a run killed mid-write) are
/// skipped; a file without our header throws IoError naming it.
std::vector<MetricsRow> readMetricsCsv(const std::string& path);

/// Parses the text of a metrics.csv (for tests and fuzzing); `origin` names it in errors.
std::vector<MetricsRow> parseMetricsCsv(const std::string& text, const std::string& origin);

}  // namespace ensemble
