// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/TensorBoardExport.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

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
constexpr const char* kExportedEventFile = "events.out.tfevents.0.ensemble-lab";
}  // namespace

TensorBoardExported exportTensorBoard(const std::string& runDirectory, const std::string& folder) {
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
  namespace fs = std::filesystem;
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
