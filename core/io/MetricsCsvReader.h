// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads a run's metrics.csv back (the GUI reloads past runs with it). Torch-free.
#include <optional>
#include <string>
#include <vector>

#include "core/io/MetricsCsvWriter.h"

namespace ensemble {

/// All rows of a metrics.csv. Rows that are cut short (a run killed mid-write) are
/// skipped; a file without our header throws IoError naming it.
std::vector<MetricsRow> readMetricsCsv(const std::string& path);

/// Parses the text of a metrics.csv (for tests and fuzzing); `origin` names it in errors.
std::vector<MetricsRow> parseMetricsCsv(const std::string& text, const std::string& origin);

/// A metrics.csv's last line when it is cut short mid-row (no newline after it: a copy or a
/// disk that lost the file's tail), which readers skip; front ends warn of it by its number.
struct TornLine {
  int64_t number = 0;  ///< 1 = the header
  std::string text;
};
std::optional<TornLine> tornLastLine(const std::string& text);
/// tornLastLine of the file at `path`; none where it cannot be read (its readers say why).
std::optional<TornLine> tornLastLineOfFile(const std::string& path);

/// An epoch's evaluation row: the epoch's training means and its test scores.
inline bool isEpochRow(const MetricsRow& row) { return row.trainLoss && row.testLoss; }
/// Steps per epoch: `recorded` (summary.json's "steps_per_epoch") where the run wrote it,
/// otherwise as the rows tell it (an epoch row's step over its epoch); 0 while neither knows.
double stepsPerEpochOf(const std::vector<MetricsRow>& rows, int64_t recorded = 0);
/// Where a row with test scores sits on an epoch axis: its epoch for an epoch row, its
/// step in epochs for an evaluation between epoch ends (2.25: a quarter into the third
/// epoch). None for the latter while `stepsPerEpoch` is unknown (0).
std::optional<double> testEpochPosition(const MetricsRow& row, double stepsPerEpoch);

}  // namespace ensemble
