// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// metrics.csv: one row per logged step and per member, and one per evaluation: at an epoch's
// end with the epoch's training means, between epoch ends (eval_every) with test scores only.
// Columns: step,epoch,member,train_loss,train_accuracy,test_loss,test_accuracy; member is
// the member's index or "ensemble"; epoch is the one in progress (1-based); a value that does
// not apply is left empty.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

namespace ensemble {

struct MetricsRow {
  int64_t step = 0;
  int64_t epoch = 0;
  std::string member;
  std::optional<double> trainLoss, trainAccuracy, testLoss, testAccuracy;
};

class MetricsCsvWriter final {
 public:
  static constexpr const char* kHeader =
      "step,epoch,member,train_loss,train_accuracy,test_loss,test_accuracy\n";

  /// Opens `path` for appending, writing the header to a new file. With `keepBytes`, the
  /// file is first cut to that length: a resumed run drops the rows written after the
  /// checkpoint it resumes from, so no row appears twice. A file shorter than that (its tail
  /// lost) keeps its whole rows and drops a last one cut short. Throws IoError.
  MetricsCsvWriter(std::string path, std::optional<std::uint64_t> keepBytes);
  ~MetricsCsvWriter();
  MetricsCsvWriter(const MetricsCsvWriter&) = delete;
  MetricsCsvWriter& operator=(const MetricsCsvWriter&) = delete;

  void write(const MetricsRow& row);
  /// Hands the rows to the OS and returns the file's length. Throws IoError (disk full...).
  std::uint64_t flush();
  /// The file's first `bytes` bytes as flushed, read through the open file (the same rows
  /// where its path was removed or replaced meanwhile). Throws IoError.
  std::string flushedText(std::uint64_t bytes) const;

  /// One row as text (with its newline), numbers with enough digits to round-trip.
  static std::string format(const MetricsRow& row);
  /// One number as a row spells it (10 significant digits).
  static std::string formatNumber(double value);

 private:
  std::string m_path;
  std::FILE* m_file = nullptr;
};

}  // namespace ensemble
