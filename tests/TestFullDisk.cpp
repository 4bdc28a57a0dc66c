// SPDX-License-Identifier: GPL-3.0-or-later
// A disk that really fills up under a running training: the run folder lives on a small
// tmpfs this test mounts, and once the first checkpoint is there another file takes every
// byte left, as a download or a log would. No fault is injected: the kernel says ENOSPC.
// The run must say so and keep what it had; copied to a bigger disk, it resumes to the
// uninterrupted run's results. Needs root (mount); skips, saying why, without.
#include <sys/mount.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/TestSupport.h"

namespace {

const QStringList kRun{"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "6", "--seed", "3",
                       "--checkpoint-every", "8"};

int runCli(const QStringList& arguments, QString* errors = nullptr) {
  QProcess process;
  process.start(ENSEMBLELAB_CLI_PATH, arguments);
  if (!process.waitForFinished(300000)) return -1;
  if (errors) *errors = QString::fromUtf8(process.readAllStandardError());
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

/// Writes zeros into `path` until the filesystem refuses, then gives `leave` bytes back;
/// returns the bytes it keeps.
qint64 fillDisk(const QString& path, qint64 leave) {
  QFile filler(path);
  if (!filler.open(QIODevice::WriteOnly)) return 0;
  const QByteArray chunk(1 << 20, '\0');
  qint64 written = 0;
  for (;;) {
    const qint64 n = filler.write(chunk);
    if (n <= 0 || !filler.flush()) break;
    written += n;
  }
  written = std::max<qint64>(0, written - leave);
  filler.resize(written);
  return written;
}

}  // namespace

class TestFullDisk final : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_small;

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    if (::geteuid() != 0) QSKIP("needs root to mount a small tmpfs: run the suite as root, as CI does");
    m_small = m_dir.filePath("small-disk");
    QVERIFY(QDir().mkpath(m_small));
    if (::mount("tmpfs", m_small.toLocal8Bit().constData(), "tmpfs", 0, "size=48m") != 0) {
      QSKIP(qPrintable("cannot mount a tmpfs here: " + QString::fromLocal8Bit(std::strerror(errno))));
    }
  }
  void cleanupTestCase() {
    if (!m_small.isEmpty()) ::umount2(m_small.toLocal8Bit().constData(), MNT_DETACH);
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
    const qint64 filled = fillDisk(m_small + "/someone-elses-download", leave);
    QVERIFY(filled > 0);
    QVERIFY(training.waitForFinished(300000));
    const QString errors = QString::fromUtf8(training.readAllStandardError());
    QVERIFY2(training.exitStatus() == QProcess::NormalExit && training.exitCode() == 1, qPrintable(errors));
    QVERIFY2(errors.contains("No space left on device") && errors.contains("resume --run"), qPrintable(errors));
    qInfo("the disk filled (%lld KiB taken by the filler); the run said:\n%s", filled >> 10,
          qPrintable(errors.trimmed().split('\n').last()));

    // What it kept: a whole checkpoint, and metrics rows that are whole.
    QVERIFY(!testing::latestWeights(run.toStdString()).empty());
    const QStringList rows = testing::readLines(run + "/metrics.csv");
    QVERIFY(rows.size() > 1);
    for (const QString& row : rows) QCOMPARE(row.count(','), rows.front().count(','));
    QVERIFY(QDir(run + "/checkpoints").entryList({".incomplete-*", ".removing-*"}, QDir::Dirs | QDir::Hidden).size() <= 1);

    // The run folder moved to a disk with room: resume ends as the uninterrupted run.
    const QString moved = m_dir.filePath("moved-" + tag);
    QCOMPARE(QProcess::execute("cp", {"-a", run, moved}), 0);
    QString resumeErrors;
    QVERIFY2(runCli({"resume", "--run", moved}, &resumeErrors) == 0, qPrintable(resumeErrors));
    QVERIFY(testing::identical(testing::latestWeights(reference.toStdString()),
                               testing::latestWeights(moved.toStdString())));
    QCOMPARE(testing::readLines(moved + "/metrics.csv"), testing::readLines(reference + "/metrics.csv"));
    // Room for the next case.
    QVERIFY(QDir(run).removeRecursively() && QFile::remove(m_small + "/someone-elses-download"));
  }
};

QTEST_GUILESS_MAIN(TestFullDisk)
#include "TestFullDisk.moc"
