// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/TensorBoardLog.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <set>

#include "core/common/Environment.h"
#include "core/common/Error.h"
#include "core/io/AtomicFile.h"
#include "core/io/WriteFaults.h"

namespace ensemble {
namespace {

namespace fs = std::filesystem;

/// TensorBoard takes any file whose name holds "tfevents" for an event file.
bool isEventFile(const fs::path& path) { return path.filename().string().find("tfevents") != std::string::npos; }

/// The event files in `folder`, oldest name first (TensorBoard's order too).
std::vector<fs::path> eventFiles(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.is_regular_file(error) && isEventFile(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// The intact points of `files` up to `lastStep`, each (tag, step) once: a crash between
/// writing the fresh file and removing the old ones leaves both, with the same points.
std::vector<ScalarEvent> keptPoints(const std::vector<fs::path>& files, int64_t lastStep) {
  std::vector<ScalarEvent> kept;
  std::set<std::pair<std::string, int64_t>> seen;
  for (const fs::path& path : files) {
    for (ScalarEvent& point : readScalarRecords(readWholeFile(path.string()))) {
      if (point.step <= lastStep && seen.emplace(point.tag, point.step).second) kept.push_back(std::move(point));
    }
  }
  return kept;
}

}  // namespace

std::string tensorBoardModelName(const std::string& member) {
  return member == "ensemble" ? member : "member-" + member;
}

std::vector<ScalarEvent> tensorBoardScalars(const MetricsRow& row, double wallTime) {
  std::vector<ScalarEvent> scalars;
  const auto add = [&](const char* tag, const std::optional<double>& value) {
    // The value as metrics.csv spells it (10 digits), so the log and the file agree to the
    // last bit of a float whether the point was logged live or regenerated from the file.
    if (!value) return;
    const double asWritten = std::strtod(MetricsCsvWriter::formatNumber(*value).c_str(), nullptr);
    scalars.push_back({wallTime, row.step, tag, float(asWritten)});
  };
  if (row.testLoss || row.testAccuracy) {  // an epoch's row: its training means and its test scores
    add("train/epoch_loss", row.trainLoss);
    add("train/epoch_accuracy", row.trainAccuracy);
    add("test/loss", row.testLoss);
    add("test/accuracy", row.testAccuracy);
    if (row.member == "ensemble") add("test/nll", row.testLoss);  // the ensemble's loss is its NLL
  } else {
    add("train/loss", row.trainLoss);
    add("train/accuracy", row.trainAccuracy);
  }
  return scalars;
}

std::optional<ScalarEvent> learningRateScalar(const MetricsRow& row, double wallTime, double rate) {
  const bool loggedStep = row.trainLoss && !row.testLoss && !row.testAccuracy;
  if (!loggedStep || row.member == "ensemble") return std::nullopt;
  return ScalarEvent{wallTime, row.step, "train/learning_rate", float(rate)};
}

std::vector<ScalarEvent> ensembleEvaluationScalars(int64_t step, double wallTime, double brier, double ece,
                                                   double disagreement) {
  std::vector<ScalarEvent> scalars;
  const std::pair<const char*, double> scores[] = {
      {"test/brier", brier}, {"test/ece", ece}, {"test/disagreement", disagreement}};
  for (const auto& [tag, value] : scores) {
    if (std::isfinite(value)) scalars.push_back({wallTime, step, tag, float(value)});
  }
  return scalars;
}

double wallClockSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TensorBoardWriter::TensorBoardWriter(std::string folder, const std::vector<std::string>& models,
                                     std::optional<int64_t> resumedAtStep)
    : m_folder(std::move(folder)) {
  const double now = wallClockSeconds();
  const std::string name = "events.out.tfevents." + std::to_string(int64_t(now)) + "." + environment::hostName();
  for (const std::string& model : models) {
    const fs::path modelFolder = fs::path(m_folder) / model;
    std::error_code error;
    fs::create_directories(modelFolder, error);
    if (error) throw IoError(describeIoFailure("cannot create", modelFolder.string(), error.value()));
    const std::vector<fs::path> earlier = eventFiles(modelFolder);
    // A resumed run keeps the points its checkpoint had seen, in a fresh file; a new run
    // (or a folder reused after a failed start) starts empty.
    const std::vector<ScalarEvent> kept = resumedAtStep ? keptPoints(earlier, *resumedAtStep) : std::vector<ScalarEvent>{};
    std::string contents = fileVersionRecord(kept.empty() ? now : kept.front().wallTime);
    for (const ScalarEvent& point : kept) contents += scalarRecord(point);
    File& file = m_files[model];
    file.path = (modelFolder / name).string();
    writeFileAtomically(file.path, contents);
    for (const fs::path& old : earlier) {
      if (old.string() != file.path) fs::remove(old, error);
    }
    file.handle = std::fopen(file.path.c_str(), "ab");
    if (!file.handle) throw IoError(describeIoFailure("cannot open", file.path, errno));
  }
}

TensorBoardWriter::~TensorBoardWriter() {
  for (auto& [model, file] : m_files) {
    if (file.handle) std::fclose(file.handle);
  }
}

TensorBoardWriter::File& TensorBoardWriter::file(const std::string& model) {
  const auto found = m_files.find(model);
  if (found == m_files.end()) throw IoError("no TensorBoard log was opened for \"" + model + "\" in " + m_folder);
  return found->second;
}

void TensorBoardWriter::add(const std::string& model, const ScalarEvent& scalar) {
  File& target = file(model);
  const std::string record = scalarRecord(scalar);
  if (const int fault = takeWriteFault(target.path)) throw IoError(describeIoFailure("cannot write", target.path, fault));
  if (std::fwrite(record.data(), 1, record.size(), target.handle) != record.size()) {
    throw IoError(describeIoFailure("cannot write", target.path, errno));
  }
}

void TensorBoardWriter::flush() {
  for (auto& [model, file] : m_files) {
    if (std::fflush(file.handle) != 0) throw IoError(describeIoFailure("cannot write", file.path, errno));
  }
}

}  // namespace ensemble
