// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/TensorBoardExport.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/common/Error.h"
#include "core/io/AtomicFile.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/RunDirectory.h"
#include "core/io/TensorBoardLog.h"
#include "core/train/RunSummary.h"

namespace ensemble {

void exportTensorBoard(const std::string& runDirectory, const std::string& folder) {
  const RunDirectory run(runDirectory);
  const RunSummary summary = RunSummary::read(run.summaryPath());
  const std::vector<MetricsRow> rows = readMetricsCsv(run.metricsPath());
  const double secondsPerStep =
      summary.stepsCompleted > 0 ? summary.trainSeconds / double(summary.stepsCompleted) : 0.0;
  const auto wallTime = [&](int64_t step) { return secondsPerStep * double(step); };

  std::map<std::string, std::vector<ScalarEvent>> byModel;  // in metrics.csv's order
  int64_t lastEpochStep = -1;
  for (const MetricsRow& row : rows) {
    std::vector<ScalarEvent>& model = byModel[tensorBoardModelName(row.member)];
    for (ScalarEvent& scalar : tensorBoardScalars(row, wallTime(row.step))) model.push_back(std::move(scalar));
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

  namespace fs = std::filesystem;
  for (const auto& [model, scalars] : byModel) {
    const fs::path modelFolder = fs::path(folder) / model;
    std::error_code error;
    fs::create_directories(modelFolder, error);
    if (error) throw IoError(describeIoFailure("cannot create", modelFolder.string(), error.value()));
    for (const auto& entry : fs::directory_iterator(modelFolder, error)) {  // an earlier export's files
      if (entry.path().filename().string().find("tfevents") != std::string::npos) fs::remove(entry.path(), error);
    }
    std::string contents = fileVersionRecord(0.0);
    for (const ScalarEvent& scalar : scalars) contents += scalarRecord(scalar);
    writeFileAtomically((modelFolder / "events.out.tfevents.0.ensemble-lab").string(), contents);
  }
}

}  // namespace ensemble
