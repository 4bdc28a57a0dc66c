// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/TensorBoardExport.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "core/common/CanonicalPath.h"
#include "core/common/Error.h"
#include "core/config/ExperimentConfig.h"
#include "core/config/LearningRateSchedule.h"
#include "core/io/AtomicFile.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/RunDirectory.h"
#include "core/io/TensorBoardLog.h"
#include "core/runs/RunSummary.h"

namespace ensemble {
namespace {
namespace fs = std::filesystem;

constexpr const char* kExportedEventFile = "events.out.tfevents.0.ensemble-lab";
/// Names the run a folder's export is of: a second run exported into the same folder would
/// replace some of the first's model files and keep the others (member-0 of one run beside
/// member-1 of another, under one name), so it is refused instead.
constexpr const char* kExportedRunFile = ".ensemble-lab-export";

/// An event file in `folder` or in a model folder inside it, or empty.
std::string firstEventFileIn(const fs::path& folder) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 1) it.disable_recursion_pending();
    if (it->path().filename().string().find("tfevents") != std::string::npos) return it->path().string();
  }
  return {};
}

/// Throws where `folder` holds a TensorBoard log that is not an earlier export of `run`.
void refuseAnotherRunsLog(const fs::path& folder, const std::string& run, const std::string& runDirectory) {
  const std::string eventFile = firstEventFileIn(folder);
  if (eventFile.empty()) return;
  std::ifstream marker(folder / kExportedRunFile);
  std::string exportedRun;
  std::getline(marker, exportedRun);
  if (exportedRun == run) return;  // this run's: replaced, as an export of it again should be
  const std::string holds = exportedRun.empty() ? "a TensorBoard log (" + eventFile + ")"
                                                : "the TensorBoard log of another run, " + exportedRun;
  throw ConfigError("the folder " + folder.string() + " already holds " + holds + "; exporting " + runDirectory +
                    " into it would mix the two runs' curves under the same names. Export each run into a folder "
                    "of its own, e.g. " + (folder / fs::path(run).filename()).string() + ", and `tensorboard --logdir " +
                    folder.string() + "` shows them side by side");
}

}  // namespace

TensorBoardExported exportTensorBoard(const std::string& runDirectory, const std::string& folder) {
  const std::string identity = canonicalPath(runDirectory);
  refuseAnotherRunsLog(folder, identity, runDirectory);
  const RunDirectory run(runDirectory);
  const RunSummary summary = RunSummary::read(run.summaryPath());
  const std::vector<MetricsRow> rows = readMetricsCsv(run.metricsPath());
  // Only config.json says how the rate moved; a run copied without it keeps the rest. A
  // damaged one still throws: its message says what is wrong with it.
  std::optional<ExperimentConfig> config;
  if (std::filesystem::exists(run.configPath())) config = ExperimentConfig::fromFile(run.configPath());
  // Runs from before summary.json kept it: the first epoch row's step over its epoch.
  const auto stepsPerEpoch = int64_t(std::llround(stepsPerEpochOf(rows, summary.stepsPerEpoch)));
  const double secondsPerStep =
      summary.stepsCompleted > 0 ? summary.trainSeconds / double(summary.stepsCompleted) : 0.0;
  const auto wallTime = [&](int64_t step) { return secondsPerStep * double(step); };

  std::map<std::string, std::vector<ScalarEvent>> byModel;  // in metrics.csv's order
  int64_t lastEpochStep = -1;
  for (const MetricsRow& row : rows) {
    std::vector<ScalarEvent>& model = byModel[tensorBoardModelName(row.member)];
    for (ScalarEvent& scalar : tensorBoardScalars(row, wallTime(row.step))) model.push_back(std::move(scalar));
    if (config) {
      const double rate = learningRateOfStep(*config, row.step, stepsPerEpoch);
      if (std::optional<ScalarEvent> scalar = learningRateScalar(row, wallTime(row.step), rate)) {
        model.push_back(std::move(*scalar));
      }
    }
    // An epoch's row (train means too): summary.json's evaluation is the last epoch's, not
    // a later one between epoch ends (eval_every).
    if (isEpochRow(row)) lastEpochStep = std::max(lastEpochStep, row.step);
  }
  if (summary.evaluation && lastEpochStep >= 0 && byModel.count("ensemble")) {
    const EnsembleScore& e = summary.evaluation->ensemble;
    for (ScalarEvent& scalar :
         ensembleEvaluationScalars(lastEpochStep, wallTime(lastEpochStep), e.brier, e.ece, e.disagreement)) {
      byModel["ensemble"].push_back(std::move(scalar));
    }
  }

  // Every model's file is written whole under a staging name first (no "tfevents" in it,
  // so TensorBoard does not read it), and only then renamed over an earlier export's: a
  // disk that fills midway leaves the earlier export as it was, not half of each.
  std::vector<fs::path> staged;
  const auto discardStaged = [&] {
    std::error_code ignored;
    for (const fs::path& file : staged) fs::remove(file, ignored);
  };
  try {
    for (const auto& [model, scalars] : byModel) {
      const fs::path modelFolder = fs::path(folder) / model;
      std::error_code error;
      fs::create_directories(modelFolder, error);
      if (error) throw IoError(describeIoFailure("cannot create", modelFolder.string(), error.value()));
      std::string contents = fileVersionRecord(0.0);
      for (const ScalarEvent& scalar : scalars) contents += scalarRecord(scalar);
      staged.push_back(modelFolder / ".incoming-export");
      writeFileAtomically(staged.back().string(), contents);
    }
    // Before the renames: the folder holds no log or this run's, so naming this run is true.
    std::error_code error;
    fs::create_directories(folder, error);  // a run without rows has no model folder in it
    if (error) throw IoError(describeIoFailure("cannot create", folder, error.value()));
    writeFileAtomically((fs::path(folder) / kExportedRunFile).string(), identity + "\n");
  } catch (...) {
    discardStaged();
    throw;
  }
  for (const fs::path& file : staged) {
    const fs::path modelFolder = file.parent_path(), target = modelFolder / kExportedEventFile;
    std::error_code error;
    fs::rename(file, target, error);
    if (error) {
      discardStaged();
      throw IoError(describeIoFailure("cannot replace", target.string(), error.value()));
    }
    for (const auto& entry : fs::directory_iterator(modelFolder, error)) {  // a live log's files, or older exports'
      const std::string name = entry.path().filename().string();
      if (name.find("tfevents") != std::string::npos && name != kExportedEventFile) fs::remove(entry.path(), error);
    }
  }
  return TensorBoardExported{config.has_value()};
}

}  // namespace ensemble
