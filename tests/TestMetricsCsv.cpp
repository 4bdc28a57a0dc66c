// SPDX-License-Identifier: GPL-3.0-or-later
// metrics.csv written by the engine reads back unchanged; torn rows are skipped, foreign
// files refused.
#include <QTemporaryDir>
#include <QtTest>

#include "core/common/Error.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/MetricsCsvWriter.h"

using namespace ensemble;

class TestMetricsCsv final : public QObject {
  Q_OBJECT

 private slots:
  void roundTripsAndResumesWithoutDuplicates() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("metrics.csv").toStdString();
    std::uint64_t afterFirst = 0;
    {
      MetricsCsvWriter writer(path, std::nullopt);
      writer.write({10, 1, "0", 2.25, 0.125, std::nullopt, std::nullopt});
      afterFirst = writer.flush();
      writer.write({20, 1, "ensemble", 1.0 / 3.0, 0.5, 0.75, 0.875});
      writer.flush();
    }
    {
      // A resume from the state after the first row drops the second and appends anew.
      MetricsCsvWriter writer(path, afterFirst);
      writer.write({20, 1, "ensemble", 0.5, 0.5, 0.25, 0.875});
      writer.flush();
    }
    const std::vector<MetricsRow> rows = readMetricsCsv(path);
    QCOMPARE(int(rows.size()), 2);
    QCOMPARE(rows[0].step, int64_t(10));
    QCOMPARE(QString::fromStdString(rows[0].member), QString("0"));
    QCOMPARE(*rows[0].trainLoss, 2.25);
    QVERIFY(!rows[0].testLoss.has_value());
    QCOMPARE(QString::fromStdString(rows[1].member), QString("ensemble"));
    QCOMPARE(*rows[1].trainLoss, 0.5);
    QCOMPARE(*rows[1].testLoss, 0.25);
  }

  void skipsTornAndMalformedRows() {
    const std::string text = std::string(MetricsCsvWriter::kHeader) +
                             "1,1,0,2.3,0.1,,\n"
                             "2,1,0,abc,0.1,,\n"   // not a number
                             "3,1,0,2.1\n"         // too few cells
                             "4,1,0,2.0,0.2,,";    // torn: no newline
    const std::vector<MetricsRow> rows = parseMetricsCsv(text, "test");
    QCOMPARE(int(rows.size()), 1);
    QCOMPARE(rows[0].step, int64_t(1));
  }

  void refusesForeignFiles() {
    QVERIFY_THROWS_EXCEPTION(IoError, parseMetricsCsv("a,b,c\n1,2,3\n", "test"));
    QVERIFY_THROWS_EXCEPTION(IoError, parseMetricsCsv("", "test"));
  }
};

QTEST_APPLESS_MAIN(TestMetricsCsv)
#include "TestMetricsCsv.moc"
