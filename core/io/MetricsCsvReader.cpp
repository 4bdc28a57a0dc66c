// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/MetricsCsvReader.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "core/common/Error.h"
#include "core/io/AtomicFile.h"

namespace ensemble {
namespace {

std::optional<double> parseOptional(const std::string& cell, bool& ok) {
  if (cell.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  ok = ok && end == cell.c_str() + cell.size();
  return value;
}

bool parseInteger(const std::string& cell, int64_t& value) {
  char* end = nullptr;
  value = std::strtoll(cell.c_str(), &end, 10);
  return !cell.empty() && end == cell.c_str() + cell.size();
}

}  // namespace

std::vector<MetricsRow> parseMetricsCsv(const std::string& text, const std::string& origin) {
  std::istringstream in(text);
  std::string line;
  std::string header = MetricsCsvWriter::kHeader;
  header.pop_back();  // its newline
  if (!std::getline(in, line) || line != header) {
    throw IoError(origin + " is not an EnsembleLab metrics file (its first line should be \"" +
                  header + "\")");
  }
  std::vector<MetricsRow> rows;
  while (std::getline(in, line)) {
    if (in.eof() && !text.empty() && text.back() != '\n') break;  // torn last line
    std::vector<std::string> cells;
    std::stringstream cellStream(line);
    std::string cell;
    while (std::getline(cellStream, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    if (cells.size() != 7) continue;
    MetricsRow row;
    bool ok = parseInteger(cells[0], row.step) && parseInteger(cells[1], row.epoch) && !cells[2].empty();
    row.member = cells[2];
    row.trainLoss = parseOptional(cells[3], ok);
    row.trainAccuracy = parseOptional(cells[4], ok);
    row.testLoss = parseOptional(cells[5], ok);
    row.testAccuracy = parseOptional(cells[6], ok);
    if (ok) rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<TornLine> tornLastLine(const std::string& text) {
  if (text.empty() || text.back() == '\n') return std::nullopt;
  const std::size_t lastNewline = text.rfind('\n');
  const std::size_t start = lastNewline == std::string::npos ? 0 : lastNewline + 1;
  return TornLine{int64_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(start), '\n')) + 1, text.substr(start)};
}

std::optional<TornLine> tornLastLineOfFile(const std::string& path) {
  try {
    return tornLastLine(readWholeFile(path));
  } catch (const IoError&) {
    return std::nullopt;
  }
}

std::vector<MetricsRow> readMetricsCsv(const std::string& path) {
  return parseMetricsCsv(readWholeFile(path), path);
}

double stepsPerEpochOf(const std::vector<MetricsRow>& rows, int64_t recorded) {
  if (recorded > 0) return double(recorded);
  for (const MetricsRow& row : rows) {
    if (isEpochRow(row) && row.epoch > 0) return double(row.step) / double(row.epoch);
  }
  return 0;
}

std::optional<double> testEpochPosition(const MetricsRow& row, double stepsPerEpoch) {
  if (isEpochRow(row)) return double(row.epoch);
  if (stepsPerEpoch <= 0) return std::nullopt;
  return double(row.step) / stepsPerEpoch;
}

}  // namespace ensemble
