// SPDX-License-Identifier: GPL-3.0-or-later
// What a full disk or a revoked permission does to a run, through the write-fault seam in
// core/io: the run fails with a message that says what and what to do, and nothing that
// was already on disk is lost — the previous checkpoint still loads and resumes, and
// metrics.csv keeps every row written before the fault, none torn. Also removeTree, which
// deletes staging folders, retired checkpoints and the bench's run folder.
#include <unistd.h>

#include <cerrno>

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/data/DatasetSource.h"
#include "core/io/RemoveTree.h"
#include "core/io/WriteFaults.h"
#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

RunFinishedEvent train(const ExperimentConfig& config, const QString& dir) {
  return Trainer::create(config, dir.toStdString(), testing::syntheticData())->run(nullptr, nullptr);
}

/// Every data line has the header's seven fields.
void expectWholeRows(const QStringList& lines) {
  QVERIFY(!lines.isEmpty());
  for (const QString& line : lines) QCOMPARE(line.count(','), 6);
}

}  // namespace

class TestWriteFaults final : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() { clearWriteFaults(); }

  void aFailedCheckpointKeepsThePreviousOneWhichResumes() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.checkpointEvery = 4;
    // The first checkpoint writes four member files (.pt); the second fails at its first.
    planWriteFault(".pt", 5, ENOSPC);
    const RunFinishedEvent failed = train(config, dir.path());
    EXPECT_STATUS(failed, RunStatus::Failed);
    const QString message = QString::fromStdString(failed.message);
    QVERIFY2(message.contains("No space left on device") && message.contains("free some disk space") &&
                 message.contains("checkpoint of step 4 is intact"),
             qPrintable(message));
    // No half-written checkpoint is left behind; the previous one is whole.
    QCOMPARE(QDir(dir.filePath("checkpoints")).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{"step-000000004"});
    expectWholeRows(testing::readLines(dir.filePath("metrics.csv")).mid(1));

    clearWriteFaults();
    auto resumed = Trainer::open(dir.path().toStdString(), testing::syntheticData());
    QCOMPARE(resumed->globalStep(), int64_t(4));
    REQUIRE_COMPLETED(resumed->run(nullptr, nullptr));

    // And the result is the uninterrupted run's.
    QTemporaryDir reference;
    REQUIRE_COMPLETED(train(config, reference.path()));
    QVERIFY(testing::sameLatestWeights(dir.path().toStdString(), reference.path().toStdString()));
    QCOMPARE(testing::readLines(dir.filePath("metrics.csv")), testing::readLines(reference.filePath("metrics.csv")));
  }

  void aFailedMetricsWriteStopsTheRunAndKeepsEveryRowWritten() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("ensemble", "cpu*2");
    config.logEvery = 1;
    planWriteFault("metrics.csv", 7, ENOSPC);  // 3 rows per step: steps 1 and 2 get through
    const RunFinishedEvent failed = train(config, dir.path());
    EXPECT_STATUS(failed, RunStatus::Failed);
    QVERIFY2(QString::fromStdString(failed.message).contains("metrics.csv: No space left on device"),
             failed.message.c_str());
    const QStringList lines = testing::readLines(dir.filePath("metrics.csv"));
    QCOMPARE(lines.size(), 1 + 6);
    QVERIFY(lines[1].startsWith("1,1,0,"));
    QVERIFY(lines[6].startsWith("2,1,ensemble,"));
    expectWholeRows(lines);
  }

  void aRevokedPermissionSaysWhereToWrite() {
    QTemporaryDir dir;
    ExperimentConfig config = testing::smallConfig("single", "cpu");
    // The first summary.json is written as the run starts, the second after epoch 1.
    planWriteFault("summary.json", 2, EACCES);
    const RunFinishedEvent failed = train(config, dir.path());
    EXPECT_STATUS(failed, RunStatus::Failed);
    QVERIFY2(QString::fromStdString(failed.message).contains("choose a folder you can write to"),
             failed.message.c_str());
    // The checkpoint of the epoch came before the summary and is whole.
    QCOMPARE(testing::modelsInLatestCheckpoint(dir.path().toStdString()), std::size_t(1));

    // Refused at the start: the run fails before its first step, saying the same.
    QTemporaryDir other;
    planWriteFault("summary.json", 1, EACCES);
    const RunFinishedEvent refused = train(config, other.path());
    EXPECT_STATUS(refused, RunStatus::Failed);
    QVERIFY2(QString::fromStdString(refused.message).contains("choose a folder you can write to"),
             refused.message.c_str());
    QCOMPARE(refused.summary ? refused.summary->stepsCompleted : int64_t(0), int64_t(0));
  }

  void theCliFailsWithTheMessageAndKeepsTheCheckpoint() {
    QTemporaryDir dir;
    QProcess cli;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("ENSEMBLELAB_WRITE_FAULT", ".pt:3:ENOSPC");  // the 2nd checkpoint
    cli.setProcessEnvironment(environment);
    cli.start(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--mode", "single", "--epochs", "1",
                                     "--checkpoint-every", "5", "--out", dir.filePath("run")});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 1);
    const QString errors = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(errors.contains("No space left on device") && errors.contains("checkpoint of step 5 is intact"),
             qPrintable(errors));
    QCOMPARE(testing::modelsInLatestCheckpoint(dir.filePath("run").toStdString()), std::size_t(1));
  }

  // export has no --out, and predict's --out is a file: a file either may not write names
  // that command's own flags, not train's --out DIR.
  void aFileItMayNotWriteNamesTheCommandsOwnFlags() {
    QTemporaryDir dir;
    QProcess cli;
    cli.start(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--mode", "single", "--epochs", "1",
                                     "--out", dir.filePath("run")});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 0);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("ENSEMBLELAB_WRITE_FAULT", "table.csv:1:EACCES");
    cli.setProcessEnvironment(environment);
    cli.start(ENSEMBLELAB_CLI_PATH, {"export", "--runs", dir.filePath("run"), "--table", dir.filePath("table.csv")});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 1);
    const QString errors = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(errors.contains("Permission denied") && errors.contains("(--to, --table, --curves or --tensorboard)") &&
                 !errors.contains("--out"),
             qPrintable(errors));

    environment.insert("ENSEMBLELAB_WRITE_FAULT", "p.csv:1:EACCES");
    cli.setProcessEnvironment(environment);
    cli.start(ENSEMBLELAB_CLI_PATH, {"predict", "--run", dir.filePath("run"), "--test-limit", "4", "--out",
                                     dir.filePath("p.csv")});
    QVERIFY(cli.waitForFinished(120000));
    QCOMPARE(cli.exitCode(), 1);
    const QString predictErrors = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(predictErrors.contains("Permission denied") && predictErrors.contains("(--out FILE.csv)") &&
                 !predictErrors.contains("DIR"),
             qPrintable(predictErrors));
  }

  void removeTreeDeletesNestedFoldersButNotWhatALinkPointsTo() {
    QTemporaryDir dir;
    const QString tree = dir.filePath("run");
    QVERIFY(QDir().mkpath(tree + "/checkpoints/step-000000004/empty"));
    QVERIFY(QDir().mkpath(dir.filePath("outside")));
    for (const QString& file : {tree + "/metrics.csv", tree + "/checkpoints/step-000000004/member-0.pt",
                                 dir.filePath("outside/keep.txt")}) {
      QFile out(file);
      QVERIFY(out.open(QIODevice::WriteOnly) && out.write("x") == 1);
    }
    // A link inside the tree to a folder outside it: removed, never followed.
    QVERIFY(QFile::link(dir.filePath("outside"), tree + "/checkpoints/linked"));
    std::error_code error;
    QVERIFY2(removeTree(tree.toStdString(), error), error.message().c_str());
    QVERIFY(!QFileInfo::exists(tree));
    QVERIFY(QFileInfo::exists(dir.filePath("outside/keep.txt")));
    // A path that is not there is already removed.
    QVERIFY(removeTree(tree.toStdString(), error));
    QVERIFY(!error);
  }

  void removeTreeSaysWhatStays() {
    QTemporaryDir dir;
    QFile plain(dir.filePath("plain"));
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    std::error_code error;
    QVERIFY(!removeTree(dir.filePath("plain/inner").toStdString(), error));
    QCOMPARE(error.value(), ENOTDIR);
    QVERIFY(plain.exists());
    if (::geteuid() == 0) return;  // root deletes from a read-only folder: the rest needs a user
    const QString locked = dir.filePath("locked");
    QVERIFY(QDir().mkpath(locked + "/inner"));
    QVERIFY(QFile::setPermissions(locked, QFile::ReadOwner | QFile::ExeOwner));
    QVERIFY(!removeTree(locked.toStdString(), error));
    QCOMPARE(error.value(), EACCES);
    QVERIFY(QFileInfo::exists(locked + "/inner"));
    QVERIFY(QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
  }

  // The PyPI torch wheels' libtorch exports its own std::filesystem::remove_all, which the
  // dynamic linker binds ahead of libstdc++'s and which crashes under GCC 13's runtime (the
  // bench on the GPU machine): no source of ours may call it; removeTree does the job.
  void noSourceCallsTheStandardRemoveAll() {
    QStringList callers;
    for (const char* folder : {"app", "core", "ui", "bench", "tests"}) {
      QDirIterator files(QString(ENSEMBLELAB_SOURCE_DIR "/") + folder, {"*.cpp", "*.h"}, QDir::Files,
                         QDirIterator::Subdirectories);
      while (files.hasNext()) {
        QFile source(files.next());
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(source.readAll());
        if (text.contains(QRegularExpression(R"(\bremove_all\s*\()"))) {
          callers << source.fileName();
        }
      }
    }
    QVERIFY2(callers.isEmpty(), qPrintable("std::filesystem::remove_all in: " + callers.join(", ")));
  }
};

QTEST_APPLESS_MAIN(TestWriteFaults)
#include "TestWriteFaults.moc"
