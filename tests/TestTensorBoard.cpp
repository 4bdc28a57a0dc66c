// SPDX-License-Identifier: GPL-3.0-or-later
// The TensorBoard log: its encoding against the format's published definition (CRC-32C's
// check values, TensorBoard's own reader and writer in tests/tensorboard_check.py), a real
// run's live log against its metrics.csv, and the export's bytes against a golden copy.
#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "core/common/Error.h"
#include "core/io/RunDirectory.h"
#include "core/io/TensorBoardEvents.h"
#include "core/io/WriteFaults.h"
#include "core/config/ExperimentConfig.h"
#include "core/runs/TensorBoardExport.h"
#include "core/train/Trainer.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

using testing::fileBytes;

/// Every event file under `log`, by its path relative to `log`, with its bytes.
QMap<QString, QByteArray> logFiles(const QString& log) {
  QMap<QString, QByteArray> files;
  const QDir root(log);
  for (const QString& model : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    for (const QString& name : QDir(root.filePath(model)).entryList({"*tfevents*"}, QDir::Files)) {
      files[model + "/" + name] = fileBytes(root.filePath(model + "/" + name));
    }
  }
  return files;
}

/// tests/tensorboard_check.py on `log` (TensorBoard's reader against metrics.csv).
void checkWithTensorBoard(const QString& runDirectory, const QString& log, bool live) {
  QProcess python;
  QStringList arguments{ENSEMBLELAB_SOURCE_DIR "/tests/tensorboard_check.py", runDirectory, log};
  if (live) arguments << "--live";
  python.start(ENSEMBLELAB_TEST_PYTHON, arguments);
  QVERIFY2(python.waitForFinished(120000), "tensorboard_check.py did not finish");
  const QString output = QString::fromUtf8(python.readAllStandardOutput() + python.readAllStandardError());
  if (python.exitCode() == 77) QSKIP(qPrintable("TensorBoard's reader is not installed: " + output));
  QVERIFY2(python.exitCode() == 0, qPrintable(output));
  qInfo().noquote() << output.trimmed();
}

QStringList withoutEnsembleScores(QStringList points) {
  const QRegularExpression scores("^ensemble test/(brier|ece|disagreement) ");
  points.removeIf([&](const QString& point) { return scores.match(point).hasMatch(); });
  return points;
}

}  // namespace

class TestTensorBoard final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_run;

 private slots:
  void initTestCase() {
    m_run = m_dir.filePath("run");
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.epochs = 2;
    config.logEvery = 3;
    config.lrSchedule = LrSchedule::Cosine;  // train/learning_rate moves at every step: up,
    config.lrWarmupSteps = 5;                // then down (checked against the Python package's)
    REQUIRE_COMPLETED(Trainer::create(config, m_run.toStdString(), testing::syntheticData())->run(nullptr, nullptr));
  }

  // RFC 3720's CRC-32C test vectors and the customary check value.
  void crc32cMatchesItsPublishedValues() {
    QCOMPARE(crc32c("123456789", 9), 0xE3069283u);
    const QByteArray zeros(32, '\0'), ones(32, '\xff');
    QCOMPARE(crc32c(zeros.data(), 32), 0x8A9136AAu);
    QCOMPARE(crc32c(ones.data(), 32), 0x62A8AB43u);
    QByteArray ascending(32, '\0');
    for (int i = 0; i < 32; ++i) ascending[i] = char(i);
    QCOMPARE(crc32c(ascending.data(), 32), 0x46DD794Eu);
  }

  void recordsReadBackAndStopAtTheFirstDamagedOne() {
    const std::vector<ScalarEvent> written{{1.7e9, 1, "train/loss", 2.25f},
                                           {1.7e9 + 0.5, 200, "test/accuracy", 0.875f},
                                           {1.7e9 + 1, 1LL << 40, "a tag of some length", -3.5f}};
    std::string bytes = fileVersionRecord(1.7e9);
    std::vector<std::size_t> ends;
    for (const ScalarEvent& event : written) {
      bytes += scalarRecord(event);
      ends.push_back(bytes.size());
    }
    std::size_t intact = 0;
    QVERIFY(readScalarRecords(bytes, &intact) == written);
    QCOMPARE(intact, bytes.size());
    // Cut inside the last record: the two before it stand.
    QCOMPARE(readScalarRecords(bytes.substr(0, bytes.size() - 3), &intact).size(), std::size_t(2));
    QCOMPARE(intact, ends[1]);
    // A flipped bit inside the second record's payload fails its CRC: only the first stands.
    std::string flipped = bytes;
    flipped[ends[0] + 14] ^= 0x10;
    QCOMPARE(readScalarRecords(flipped, &intact).size(), std::size_t(1));
    QCOMPARE(intact, ends[0]);
  }

  // The live log holds every value of metrics.csv (TensorBoard's reader says so), and the
  // ensemble's Brier, ECE and disagreement at every evaluation, the last one summary.json's.
  void aRunWritesItsLogAsItTrains() {
    const QString log = m_run + "/tensorboard";
    QCOMPARE(QDir(log).entryList(QDir::Dirs | QDir::NoDotAndDotDot), (QStringList{"ensemble", "member-0", "member-1"}));
    const QStringList points = testing::tensorBoardPoints(log);
    const nlohmann::json ensemble = RunDirectory::readJson(m_run.toStdString() + "/summary.json").at("ensemble");
    for (const auto& [tag, key] : {std::pair{"brier", "test_brier"}, {"ece", "test_ece"}, {"disagreement", "disagreement"}}) {
      const QStringList scores = points.filter(QRegularExpression(QString("^ensemble test/%1 ").arg(tag)));
      QCOMPARE(scores.size(), 2);  // one per epoch
      QCOMPARE(scores.last().section(' ', 3).toFloat(), float(ensemble.at(key).get<double>()));
    }
    // Each member's rate at its logged steps (every 3rd): up through the 5 warmup steps, lr at
    // step 6, the first after them, then falling.
    const QStringList rates = points.filter(QRegularExpression("^member-1 train/learning_rate "));
    QCOMPARE(rates.size(), points.filter(QRegularExpression("^member-1 train/loss ")).size());
    const float lr = float(testing::smallConfig("ensemble", "cpu*2").learningRate);
    QVERIFY2(rates.size() > 3 && rates[0].startsWith("member-1 train/learning_rate 3 "), qPrintable(rates.join("; ")));
    QVERIFY2(rates[0].section(' ', 3).toFloat() < lr && rates[1].section(' ', 3).toFloat() == lr, qPrintable(rates.join("; ")));
    for (int i = 2; i < rates.size(); ++i) {
      QVERIFY2(rates[i].section(' ', 3).toFloat() < rates[i - 1].section(' ', 3).toFloat(), qPrintable(rates[i]));
    }
    checkWithTensorBoard(m_run, log, true);
  }

  void theExportRegeneratesTheLogFromMetricsCsv() {
    const QString first = m_dir.filePath("export-1"), second = m_dir.filePath("export-2");
    exportTensorBoard(m_run.toStdString(), first.toStdString());
    exportTensorBoard(m_run.toStdString(), second.toStdString());
    exportTensorBoard(m_run.toStdString(), second.toStdString());  // over an earlier export
    QCOMPARE(logFiles(first).size(), 3);
    QCOMPARE(logFiles(first), logFiles(second));
    // The same points as the live log, but for the per-epoch scores metrics.csv lacks.
    QCOMPARE(withoutEnsembleScores(testing::tensorBoardPoints(first)),
             withoutEnsembleScores(testing::tensorBoardPoints(m_run + "/tensorboard")));
    checkWithTensorBoard(m_run, first, false);
  }

  // Two runs exported into one folder would mix (the second replaces the model folders the
  // two share, member-0, and leaves the first's others): refused, the folder as it was; the
  // same run again replaces its own export; each run in a folder of its own stays apart.
  void aSecondRunIsNotExportedOverTheFirst() {
    const QString other = m_dir.filePath("other-run"), shared = m_dir.filePath("shared-export");
    REQUIRE_COMPLETED(Trainer::create(testing::smallConfig("single", "cpu"), other.toStdString(), testing::syntheticData())
                          ->run(nullptr, nullptr));
    exportTensorBoard(m_run.toStdString(), shared.toStdString());
    const QMap<QString, QByteArray> first = logFiles(shared);
    QCOMPARE(first.size(), 3);  // ensemble, member-0, member-1
    try {
      exportTensorBoard(other.toStdString(), shared.toStdString());
      QFAIL("a second run was exported over the first");
    } catch (const ConfigError& error) {
      const QString message = error.what();
      QVERIFY2(message.contains("already holds the TensorBoard log of another run, " +
                                QFileInfo(m_run).canonicalFilePath()) &&
                   message.contains("e.g. " + shared + "/other-run"),
               qPrintable(message));
    }
    QVERIFY(logFiles(shared) == first);
    exportTensorBoard(m_run.toStdString(), shared.toStdString());  // again: its own, replaced
    QVERIFY(logFiles(shared) == first);
    exportTensorBoard(other.toStdString(), (shared + "/other-run").toStdString());
    QCOMPARE(logFiles(shared + "/other-run").keys(), QStringList{"member-0/events.out.tfevents.0.ensemble-lab"});
    QVERIFY(logFiles(shared) == first);

    // A log the export did not write (a run's live one, copied) is not this run's to replace.
    const QString copied = m_dir.filePath("copied-live-log");
    QVERIFY(QDir().mkpath(copied + "/member-0"));
    const QString live = QDir(other + "/tensorboard/member-0").entryList({"*tfevents*"}).value(0);
    QVERIFY(QFile::copy(other + "/tensorboard/member-0/" + live, copied + "/member-0/" + live));
    QVERIFY_THROWS_EXCEPTION(ConfigError, exportTensorBoard(m_run.toStdString(), copied.toStdString()));
    QCOMPARE(logFiles(copied).size(), 1);
  }

  // A run folder kept in tests/golden gives the same bytes every time, on every build.
  void theExportOfAKnownRunIsGolden() {
    const QString golden = ENSEMBLELAB_SOURCE_DIR "/tests/golden/tensorboard-run";
    const QString out = m_dir.filePath("golden-export");
    exportTensorBoard(golden.toStdString(), out.toStdString());
    const QMap<QString, QByteArray> expected = logFiles(golden + "/expected");
    QVERIFY(!expected.isEmpty());
    QCOMPARE(logFiles(out).keys(), expected.keys());
    for (const QString& file : expected.keys()) QVERIFY2(logFiles(out)[file] == expected[file], qPrintable(file));
    checkWithTensorBoard(golden, out, false);
  }

  // A run folder copied without its config.json exports all the same, less the learning
  // rates only config.json can give; a damaged config.json still fails by name.
  void aRunWithoutConfigJsonExportsAllButTheLearningRates() {
    const QString golden = ENSEMBLELAB_SOURCE_DIR "/tests/golden/tensorboard-run";
    const QString run = m_dir.filePath("without-config");
    QVERIFY(QDir().mkpath(run));
    for (const QString& name : {"metrics.csv", "summary.json"}) QVERIFY(QFile::copy(golden + "/" + name, run + "/" + name));
    const QString out = m_dir.filePath("without-config-export");
    QVERIFY(!exportTensorBoard(run.toStdString(), out.toStdString()).learningRates);
    QStringList expected = testing::tensorBoardPoints(golden + "/expected");
    const qsizetype all = expected.size();
    expected.removeIf([](const QString& point) { return point.contains(" train/learning_rate "); });
    QVERIFY(expected.size() < all);
    QCOMPARE(testing::tensorBoardPoints(out), expected);

    QVERIFY(QFile::copy(golden + "/config.json", run + "/config.json"));
    QVERIFY(exportTensorBoard(run.toStdString(), out.toStdString()).learningRates);
    QCOMPARE(testing::tensorBoardPoints(out).size(), all);

    QFile damaged(run + "/config.json");
    QVERIFY(damaged.open(QIODevice::WriteOnly | QIODevice::Truncate) && damaged.write("{\"lr\": ") > 0);
    damaged.close();
    QVERIFY_THROWS_EXCEPTION(ConfigError, exportTensorBoard(run.toStdString(), out.toStdString()));
  }

  // A disk that fills while the log is written fails the run, naming the file; the
  // checkpoint before it stays.
  void aFullDiskWhileLoggingFailsTheRunByName() {
    QTemporaryDir dir;
    planWriteFault("tfevents", 4, ENOSPC);
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.logEvery = 1;
    const RunFinishedEvent finished = Trainer::create(config, dir.path().toStdString(), testing::syntheticData())->run(nullptr, nullptr);
    clearWriteFaults();
    EXPECT_STATUS(finished, RunStatus::Failed);
    QVERIFY2(QString::fromStdString(finished.message).contains("tfevents"), finished.message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestTensorBoard)
#include "TestTensorBoard.moc"
