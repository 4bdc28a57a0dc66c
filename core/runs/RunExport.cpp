// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/RunExport.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <filesystem>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/io/AtomicFile.h"
#include "core/io/Checkpoint.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/RemoveTree.h"
#include "core/io/RunDirectory.h"
#include "core/runs/RestorableRunFile.h"
#include "core/runs/RunSummary.h"

namespace ensemble {
namespace {

bool endsWith(const std::string& text, const std::string& suffix) {
  if (text.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[text.size() - suffix.size() + i])) != suffix[i]) return false;
  }
  return true;
}

}  // namespace

nlohmann::json runMetricsDocument(const std::string& runDirectory) {
  const RunDirectory run(runDirectory);
  requireRestorable(run, run.metricsPath());
  requireRestorable(run, run.configPath());
  nlohmann::json curves = nlohmann::json::object();
  const std::vector<MetricsRow> rows = readMetricsCsv(run.metricsPath());
  RunSummary::read(run.summaryPath());  // a damaged one is refused saying how to write it again
  const nlohmann::json summary = RunDirectory::readJson(run.summaryPath());  // exported as it is
  const auto recorded = summary.find("steps_per_epoch");  // absent from older summaries
  const double stepsPerEpoch =
      stepsPerEpochOf(rows, recorded != summary.end() && recorded->is_number_integer() ? recorded->get<int64_t>() : 0);
  for (const MetricsRow& row : rows) {
    nlohmann::json& series = curves[row.member];
    if (row.testLoss && row.testAccuracy) {  // an evaluation, by epoch (fractional between epoch ends)
      const std::optional<double> x = testEpochPosition(row, stepsPerEpoch);
      if (!x) continue;
      series["test_loss"].push_back({*x, *row.testLoss});
      series["test_accuracy"].push_back({*x, *row.testAccuracy});
    } else if (row.trainLoss && row.trainAccuracy) {  // a logged step's training means, by step
      series["train_loss"].push_back({double(row.step), *row.trainLoss});
      series["train_accuracy"].push_back({double(row.step), *row.trainAccuracy});
    }
  }
  // Exported as it is, but a run's: an array or a number there is no run's settings.
  const nlohmann::json config = RunDirectory::readJson(run.configPath());
  if (!config.is_object()) {
    throw ConfigError(run.configPath() + " holds a JSON " + config.type_name() + ", not a run's settings (an object); " +
                      "the run folder is damaged: " + mention::resumeCommand(run.path()) +
                      " writes it again from the run's last checkpoint");
  }
  // Built by assignment: the same document as a braced list ({{"run", ...}, {"config", config},
  // ...}) crashed here, freeing a bad pointer, in the build with LibTorch's precompiled header
  // and not in one without it (2026-12-06; the cause is not found, see the session's note).
  nlohmann::json document = nlohmann::json::object();
  document["run"] = RunDirectory::nameOf(runDirectory);
  document["config"] = config;
  document["summary"] = summary;
  document["curves"] = std::move(curves);
  return document;
}

void exportRunMetrics(const std::string& runDirectory, const std::string& path) {
  if (endsWith(path, ".csv")) {
    requireRestorable(RunDirectory(runDirectory), RunDirectory(runDirectory).metricsPath());
    std::string text = readWholeFile(RunDirectory(runDirectory).metricsPath());
    // A row cut short is no row (readers skip it; the CLI warns of it): the copy ends whole.
    if (const std::optional<TornLine> torn = tornLastLine(text)) text.resize(text.size() - torn->text.size());
    writeFileAtomically(path, text);
  } else if (endsWith(path, ".json")) {
    writeFileAtomically(path, runMetricsDocument(runDirectory).dump(2) + "\n");
  } else {
    throw ConfigError("cannot export to " + path + ": name a .csv file (metrics.csv as it is) or a .json file "
                      "(config, summary and curves in one document)");
  }
}

std::string exportLatestCheckpoint(const std::string& runDirectory, const std::string& folder) {
  const std::string checkpoint = latestCheckpoint(RunDirectory(runDirectory).checkpointsPath());
  const std::string target =
      (std::filesystem::path(folder) / (RunDirectory::nameOf(runDirectory) + "-" + std::filesystem::path(checkpoint).filename().string()))
          .string();
  std::error_code error;
  if (std::filesystem::exists(target, error)) {
    throw IoError("cannot copy the checkpoint to " + target + ": it exists already; choose another folder");
  }
  // Copied beside the target and renamed when whole: a disk that fills halfway leaves no
  // half checkpoint under the final name (nor the partial copy, which is removed).
  const std::string staging = target + ".incomplete";
  removeTree(staging, error);
  std::filesystem::copy(checkpoint, staging, std::filesystem::copy_options::recursive, error);
  if (!error) {
    syncDirectory(staging);
    std::filesystem::rename(staging, target, error);
  }
  if (error) {
    std::error_code ignored;
    removeTree(staging, ignored);
    throw IoError(describeIoFailure("cannot copy the checkpoint to", target, error.value()));
  }
  syncDirectory(folder);
  return target;
}

}  // namespace ensemble
