// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Helpers shared by the tests: real run folders, checkpoint weights, metrics rows. Free of
// LibTorch's headers, which cost a test's compilation 14 s (most tests only run the CLI or
// the trainer); tests/CheckpointWeights.h has the weights themselves, as tensors.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/train/RunControl.h"
#include "core/train/TrainingObserver.h"
#include "tests/RunStatusCheck.h"

namespace ensemble {
struct DatasetPair;
struct ExperimentConfig;
}  // namespace ensemble

namespace testing {

/// The synthetic dataset, generated once per test process.
std::shared_ptr<const ensemble::DatasetPair> syntheticData();

/// A config on the synthetic set, small enough for a test.
ensemble::ExperimentConfig smallConfig(const std::string& mode, const std::string& devices);

/// True when the latest checkpoints of both runs (read from the files on disk) hold the same
/// models, with the same names and bit-identical tensors.
bool sameLatestWeights(const std::string& runDirectoryA, const std::string& runDirectoryB);

/// How many models' weights the run's latest checkpoint holds, read from the files on disk.
std::size_t modelsInLatestCheckpoint(const std::string& runDirectory);

/// IDX bytes: header for `dims` (element type `type`) followed by `payload`.
QByteArray idxBytes(const std::vector<std::uint32_t>& dims, const QByteArray& payload,
                    std::uint8_t type = 0x08);
/// gzip-compressed bytes, as `gzip` writes them.
QByteArray gzipped(const QByteArray& raw);
/// Deterministic non-constant bytes.
QByteArray pattern(int size);
/// Writes `bytes` to `path`; returns false when it cannot.
bool writeFile(const QString& path, const QByteArray& bytes);
/// Writes the four MNIST-format files: `train`/`test` samples of rows x cols images, labels
/// 0 to classes - 1 in turn (the test split's in steps of 3).
void writeMnistFolder(const QString& dir, int train, int test, int rows, int cols, bool gz, int classes = 10);
/// writeMnistFolder's four files under the names downloads give them: behind `prefix`
/// (EMNIST's "emnist-letters-"), with `separator` before "idx" ("." as some MNIST mirrors
/// ship them, "-" as MNIST's own). False when a file cannot be written.
bool writeNamedMnistSet(const QString& dir, const QString& prefix, const QString& separator, int train, int test,
                        int rows, int cols, bool gz, int classes = 10);

/// A TCP port P such that P .. P + count - 1 are free on every interface at the time of
/// asking (a run may listen on the ports after MASTER_PORT too).
int freePort(int count = 1);

/// CLI arguments with `flag` set to `value`: its value replaced where `arguments` has it,
/// else appended (the CLI refuses a flag given twice).
inline QStringList withFlag(QStringList arguments, const QString& flag, const QString& value) {
  const int at = int(arguments.indexOf(flag));
  if (at >= 0 && at + 1 < arguments.size()) arguments[at + 1] = value;
  else arguments << flag << value;
  return arguments;
}

/// The lines of a text file.
QStringList readLines(const QString& path);
/// A file's bytes; empty where it cannot be read.
QByteArray fileBytes(const QString& path);

/// A TensorBoard log's points, wall times left out: "MODEL TAG STEP VALUE" per point, in
/// each model's file order, models by name (core/io/TensorBoardLog.h's layout).
QStringList tensorBoardPoints(const QString& logFolder);

/// Asks `control` for a stop once the run reaches `step` (the run then checkpoints there).
class StopAtStep final : public ensemble::TrainingObserver {
 public:
  StopAtStep(ensemble::RunControl& control, int64_t step) : m_control(control), m_step(step) {}
  void onStep(const ensemble::StepEvent& event) override {
    if (event.globalStep == m_step) m_control.requestStop();
  }

 private:
  ensemble::RunControl& m_control;
  int64_t m_step;
};

}  // namespace testing
