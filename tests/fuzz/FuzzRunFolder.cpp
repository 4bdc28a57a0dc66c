// SPDX-License-Identifier: GPL-3.0-or-later
// What the window reads to list and plot a past run: config.json, summary.json and
// metrics.csv (the input, split at the first two NUL bytes), loaded by RunRecord and shown
// by RunsModel in every column, and the metrics parsed into plot curves.
#include <QDir>
#include <QFile>
#include <string>

#include <nlohmann/json.hpp>

#include "core/io/MetricsCsvReader.h"
#include "core/runs/RunSummary.h"
#include "tests/fuzz/FuzzContract.h"
#include "ui/RunsModel.h"

namespace {

void writePart(const QString& path, const std::string& bytes) {
  QFile file(path);
  fuzzing::require(file.open(QIODevice::WriteOnly | QIODevice::Truncate), "cannot write the scratch run");
  file.write(bytes.data(), qint64(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const QString root = QString::fromStdString(fuzzing::scratchPath("runs"));
  static const QString run = root + "/20260101-000000000-ensemble-cnn";
  QDir().mkpath(run);
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t first = input.find('\0');
  const std::size_t second = first == std::string::npos ? std::string::npos : input.find('\0', first + 1);
  writePart(run + "/config.json", input.substr(0, first));
  writePart(run + "/summary.json", first == std::string::npos ? "" : input.substr(first + 1, second - first - 1));
  writePart(run + "/metrics.csv", second == std::string::npos ? "" : input.substr(second + 1));

  ensemble::ui::RunsModel model;
  model.scan(root);
  for (int row = 0; row < model.rowCount(); ++row) {
    for (int column = 0; column < model.columnCount(); ++column) {
      for (const int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole), int(Qt::ForegroundRole)}) {
        model.data(model.index(row, column), role);
      }
    }
    QString error;
    model.record(row).ensureCurves(&error);  // an unreadable file is an error message, never a crash
  }
  // The summary the table and the ensemble breakdown show.
  if (first != std::string::npos) {
    const nlohmann::json summary =
        nlohmann::json::parse(input.substr(first + 1, second - first - 1), nullptr, /*allow_exceptions=*/false);
    if (!summary.is_discarded()) fuzzing::expectParsedOrRejected([&] { ensemble::RunSummary::fromJson(summary, "fuzz"); });
  }
  fuzzing::expectParsedOrRejected([&] {
    for (const ensemble::MetricsRow& row : ensemble::parseMetricsCsv(input.substr(second == std::string::npos ? 0 : second + 1), "fuzz"))
      fuzzing::require(row.step >= 0 && row.epoch >= 0 && !row.member.empty(), "a parsed metrics row is invalid");
  });
  return 0;
}
