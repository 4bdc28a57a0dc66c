// SPDX-License-Identifier: GPL-3.0-or-later
// A disk that really fills up under a running training: the run folder lives on a small
// tmpfs this test mounts, and once the first checkpoint is there another file takes every
// byte left, as a download or a log would. No fault is injected: the kernel says ENOSPC.
// The run must say so and keep what it had; copied to a bigger disk, it resumes to the
// uninterrupted run's results. The files made from a finished run (exports, TensorBoard
// logs, predictions) fail on that full disk with the reason, and leave what was at their
// target as it was. Needs root (mount); skips, saying why, without.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/ChildProcess.h"
#include "tests/SmallDisk.h"
#include "tests/TestSupport.h"

namespace {

using testing::runCli;

const QStringList kRun{"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "6", "--seed", "3",
                       "--checkpoint-every", "8", "--log-every", "1"};

}  // namespace

class TestFullDisk final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  testing::SmallDisk m_disk;
  QString m_small;

 private slots:
  void cleanup() { m_disk.release(); }  // a failed case leaves the next one room

  void initTestCase() {
    QVERIFY(m_dir.isValid());
    const QString whyNot = m_disk.mount(m_dir.filePath("small-disk"), 48);
    if (!whyNot.isEmpty()) QSKIP(qPrintable(whyNot));
    m_small = m_disk.path();
  }

  // The disk fills at different points of the run: at once (the next checkpoint fails),
  // after a few metrics rows and TensorBoard points, or halfway through a checkpoint.
  void aDiskFullMidRunLosesNothingAndResumesElsewhere_data() {
    QTest::addColumn<qint64>("leave");
    QTest::newRow("nothing left") << qint64(0);
    QTest::newRow("64 KiB left") << qint64(64 << 10);
    QTest::newRow("3 MiB left") << qint64(3 << 20);
  }
  void aDiskFullMidRunLosesNothingAndResumesElsewhere() {
    QFETCH(qint64, leave);
    const QString tag = QString::number(leave);
    const QString reference = m_dir.filePath("reference"), run = m_small + "/run-" + tag;
    if (!QFile::exists(reference)) QCOMPARE(runCli(kRun + QStringList{"--out", reference}), 0);

    QProcess training;
    training.start(ENSEMBLELAB_CLI_PATH, kRun + QStringList{"--out", run});
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(run + "/checkpoints/latest"), 120000);
    const qint64 filled = m_disk.fill(leave);
    QVERIFY(filled > 0);
    QVERIFY(training.waitForFinished(300000));
    const QString errors = QString::fromUtf8(training.readAllStandardError());
    QVERIFY2(training.exitStatus() == QProcess::NormalExit && training.exitCode() == 1, qPrintable(errors));
    QVERIFY2(errors.contains("No space left on device") && errors.contains("resume --run"), qPrintable(errors));
    qInfo("the disk filled (%lld KiB taken by the filler); the run said:\n%s", filled >> 10,
          qPrintable(errors.trimmed().split('\n').last()));

    // What it kept: a whole checkpoint, and metrics rows that are whole.
    QVERIFY(testing::modelsInLatestCheckpoint(run.toStdString()) > 0);
    const QStringList rows = testing::readLines(run + "/metrics.csv");
    QVERIFY(rows.size() > 1);
    for (const QString& row : rows) QCOMPARE(row.count(','), rows.front().count(','));
    QVERIFY(QDir(run + "/checkpoints").entryList({".incomplete-*", ".removing-*"}, QDir::Dirs | QDir::Hidden).size() <= 1);

    if (leave == 0) {
      // The disk read-only now: resume says the run's own folder must be writable, and how to go
      // on. (It had said "cannot trim ...; choose a folder you can write to (--out DIR)", a flag
      // resume does not take: a run resumes in its folder.)
      QVERIFY(m_disk.setReadOnly(true));
      QString readOnly;
      const int code = runCli({"resume", "--run", run}, &readOnly);
      QVERIFY(m_disk.setReadOnly(false));
      QVERIFY2(code == 1 && readOnly.contains("Read-only file system; a run resumes in its own folder, which must be "
                                              "writable: copy the run folder to a disk you can write to, and resume "
                                              "the copy") && !readOnly.contains("--out"),
               qPrintable(readOnly));
    }

    // The run folder moved to a disk with room: resume ends as the uninterrupted run.
    const QString moved = m_dir.filePath("moved-" + tag);
    QCOMPARE(QProcess::execute("cp", {"-a", run, moved}), 0);
    QString resumeErrors;
    QVERIFY2(runCli({"resume", "--run", moved}, &resumeErrors) == 0, qPrintable(resumeErrors));
    QVERIFY(testing::sameLatestWeights(reference.toStdString(), moved.toStdString()));
    QCOMPARE(testing::readLines(moved + "/metrics.csv"), testing::readLines(reference + "/metrics.csv"));
    // The live TensorBoard log too: every point of the uninterrupted run's, once.
    const QStringList points = testing::tensorBoardPoints(moved + "/tensorboard");
    QVERIFY(!points.empty());
    QCOMPARE(points, testing::tensorBoardPoints(reference + "/tensorboard"));
    // Room for the next case.
    QVERIFY(QDir(run).removeRecursively() && m_disk.release());
  }

  // The files made from a finished run (exports, TensorBoard logs, predictions) on a disk
  // that is full: each command fails, saying so, and leaves what was at its target as it
  // was; once there is room, the same command writes it.
  void exportsOnAFullDiskKeepWhatWasThere_data() {
    QTest::addColumn<QStringList>("arguments");  // {target} is the file or folder on the small disk
    QTest::addColumn<QString>("target");
    QTest::newRow("metrics as JSON") << QStringList{"export", "--run", "{reference}", "--to", "{target}"} << "metrics.json";
    QTest::newRow("metrics as CSV") << QStringList{"export", "--run", "{reference}", "--to", "{target}"} << "metrics.csv";
    QTest::newRow("TensorBoard log") << QStringList{"export", "--run", "{reference}", "--tensorboard", "{target}"} << "tensorboard";
    QTest::newRow("predictions") << QStringList{"predict", "--run", "{reference}", "--out", "{target}"} << "predictions.csv";
    QTest::newRow("comparison table") << QStringList{"export", "--runs", "{reference},{short}", "--table", "{target}"} << "runs.csv";
    QTest::newRow("curves") << QStringList{"export", "--runs", "{reference},{short}", "--curves", "{target}"} << "curves.csv";
  }
  void exportsOnAFullDiskKeepWhatWasThere() {
    QFETCH(QStringList, arguments);
    QFETCH(QString, target);
    const QString reference = m_dir.filePath("reference"), shortRun = m_dir.filePath("short");
    if (!QFile::exists(reference)) QCOMPARE(runCli(kRun + QStringList{"--out", reference}), 0);
    if (!QFile::exists(shortRun)) QCOMPARE(runCli({"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "1", "--out", shortRun}), 0);
    const QString path = m_small + "/" + target;
    const auto withPaths = [&](QStringList list, const QString& run) {
      for (QString& argument : list) {
        // The short run alone where both were listed: a run given twice is refused.
        if (run == shortRun) argument.replace("{reference},{short}", "{short}");
        argument.replace("{target}", path).replace("{reference}", run).replace("{short}", shortRun);
      }
      return list;
    };
    // What was there before: the same file made from the short run. It takes fewer pages
    // than the reference's, so an export that removed it before writing would still fail
    // here, and the loss would show.
    QString errors;
    // A TensorBoard folder holds one run's log (another's export into it is refused): there,
    // what was there is the same run's earlier export, one byte longer in each file, so that
    // it is told from a new one (the same run gives the same bytes).
    const bool sameRun = arguments.contains("--tensorboard");
    QVERIFY2(runCli(withPaths(arguments, sameRun ? reference : shortRun), &errors) == 0, qPrintable(errors));
    if (sameRun) {
      QDirIterator files(path, {"*tfevents*"}, QDir::Files, QDirIterator::Subdirectories);
      int marked = 0;
      while (files.hasNext()) {
        QFile file(files.next());
        QVERIFY(file.open(QIODevice::Append) && file.write("\n", 1) == 1);
        ++marked;
      }
      QVERIFY(marked > 0);
    }
    const QStringList before = testing::filesWithContents(path);

    QVERIFY(m_disk.fill(0) > 0);
    QVERIFY2(runCli(withPaths(arguments, reference), &errors) == 1, qPrintable(errors));
    QVERIFY2(errors.contains("No space left on device") && errors.contains("free some disk space"), qPrintable(errors));
    qInfo("%s", qPrintable(errors.trimmed()));
    QCOMPARE(testing::filesWithContents(path), before);
    QCOMPARE(testing::stagingLeftovers(m_small), QStringList());

    QVERIFY(m_disk.release());
    QVERIFY2(runCli(withPaths(arguments, reference), &errors) == 0, qPrintable(errors));
    QVERIFY(testing::filesWithContents(path) != before);
    QVERIFY(QFileInfo(path).isDir() ? QDir(path).removeRecursively() : QFile::remove(path));
  }
};

QTEST_GUILESS_MAIN(TestFullDisk)
#include "TestFullDisk.moc"
