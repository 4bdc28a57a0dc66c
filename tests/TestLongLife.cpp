// SPDX-License-Identifier: GPL-3.0-or-later
// A long CLI run watched from outside, as a user's monitoring would: 60 epochs on the
// synthetic set, evaluated every epoch, with the process's resident memory, threads and
// open file descriptors read from /proc at each epoch's end. A leak of any of them grows
// with the epochs; the run must end as it settled.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <map>
#include <vector>

#include "tests/ProcessUsage.h"
#include "tests/TestSupport.h"

namespace {

/// The epoch of metrics.csv's last whole row, or 0.
int lastEpoch(const QString& metricsCsv) {
  const QStringList rows = testing::readLines(metricsCsv);
  if (rows.size() < 2) return 0;
  const QStringList fields = rows.back().split(',');
  return fields.size() == rows.front().split(',').size() ? fields[1].toInt() : 0;
}

}  // namespace

class TestLongLife final : public QObject {
  Q_OBJECT

 private slots:
  void sixtyEpochsKeepMemoryThreadsAndFilesFlat() {
    QTemporaryDir dir;
    const QString run = dir.filePath("long");
    QProcess training;
    training.start(ENSEMBLELAB_CLI_PATH, {"train", "--dataset", "synthetic", "--devices", "cpu*2", "--epochs", "60",
                                          "--seed", "4", "--out", run});
    QVERIFY(training.waitForStarted());
    std::map<int, testing::ProcessUsage> byEpoch;  // the first sample after each epoch's rows appear
    while (training.state() != QProcess::NotRunning) {
      const int epoch = lastEpoch(run + "/metrics.csv");
      if (epoch > 0 && !byEpoch.count(epoch)) {
        const testing::ProcessUsage usage = testing::usageOf(QString::number(training.processId()));
        if (usage.rssKiB > 0) byEpoch[epoch] = usage;
      }
      training.waitForFinished(50);
    }
    QVERIFY2(training.exitStatus() == QProcess::NormalExit && training.exitCode() == 0,
             training.readAllStandardError().constData());
    QVERIFY2(byEpoch.count(5) && byEpoch.rbegin()->first >= 55,
             qPrintable(QString("sampled %1 epochs, the last %2").arg(byEpoch.size()).arg(byEpoch.rbegin()->first)));
    const testing::ProcessUsage early = byEpoch.at(5), late = byEpoch.rbegin()->second;
    // Resident memory is compared as the median of ten epochs' samples, early (5-14) and
    // last: one sample swings by up to 4% as glibc's arenas fill and return (measured
    // 186.9 MB at epoch 5 against 190-197 MB after, CI of 9006ff3), the medians by under 0.5%.
    std::vector<qint64> earlyRss, lateRss;
    for (const auto& [epoch, usage] : byEpoch) {
      if (epoch >= 5 && epoch < 15) earlyRss.push_back(usage.rssKiB);
      if (epoch > byEpoch.rbegin()->first - 10) lateRss.push_back(usage.rssKiB);
    }
    QVERIFY2(earlyRss.size() >= 5 && lateRss.size() >= 5,
             qPrintable(QString("%1 early and %2 late samples").arg(earlyRss.size()).arg(lateRss.size())));
    const qint64 earlyMedian = testing::medianOf(earlyRss), lateMedian = testing::medianOf(lateRss);
    qInfo("epoch 5: %d threads, %d fds; epoch %d: %d threads, %d fds; RSS, median of epochs 5-14: %lld KiB, of the "
          "last ten: %lld KiB (%+.1f%%)",
          early.threads, early.fds, byEpoch.rbegin()->first, late.threads, late.fds, earlyMedian, lateMedian,
          100.0 * double(lateMedian - earlyMedian) / double(earlyMedian));
#if defined(ENSEMBLELAB_SANITIZED)
    // ASan holds freed blocks in its quarantine (up to 256 MiB) before reusing them, so the
    // resident set grows by design; threads and descriptors still must not.
    qInfo("resident memory not bounded under a sanitizer");
#else
    // 5% of ~190 MB over the ~46 epochs between the windows: a leak of 210 KB an epoch fails.
    QVERIFY2(lateMedian <= earlyMedian * 105 / 100, "resident memory grew by more than 5%");
#endif
    QCOMPARE(late.threads, early.threads);
    QVERIFY2(late.fds == early.fds, qPrintable(late.openFiles.join(", ") + " against " + early.openFiles.join(", ")));
    for (const auto& [epoch, usage] : byEpoch) {
      if (epoch < 5) continue;
      QVERIFY2(usage.threads == early.threads && usage.fds == early.fds,
               qPrintable(QString("epoch %1: %2 threads, %3 fds (%4); epoch 5: %5")
                              .arg(epoch)
                              .arg(usage.threads)
                              .arg(usage.fds)
                              .arg(usage.openFiles.join(", "), early.openFiles.join(", "))));
    }
  }
};

QTEST_GUILESS_MAIN(TestLongLife)
#include "TestLongLife.moc"
