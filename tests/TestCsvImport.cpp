// SPDX-License-Identifier: GPL-3.0-or-later
// CSV files of a label and its pixels a row (Kaggle's Fashion-MNIST) into an MNIST-format
// folder: the IDX files hold the CSV's numbers byte for byte, the loader reads them, every
// kind of CSV that is not that is refused naming its file, line and field, and nothing is
// left behind where an import fails.
#include <functional>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "core/common/Error.h"
#include "core/data/CsvDataset.h"
#include "core/data/Dataset.h"
#include "core/data/DatasetSource.h"
#include "core/data/IdxFile.h"
#include "core/runs/DatasetImport.h"
#include "tests/TestSupport.h"

using namespace ensemble;

namespace {

/// Rows of a label and its pixels: label i % classes, pixel j of row i = (7 i + j) % 256.
QList<QList<int>> rowsOf(int count, int pixels, int classes) {
  QList<QList<int>> rows;
  for (int i = 0; i < count; ++i) {
    QList<int> row{i % classes};
    for (int j = 0; j < pixels; ++j) row << (7 * i + j) % 256;
    rows << row;
  }
  return rows;
}

QByteArray csvText(const QList<QList<int>>& rows, const QByteArray& header, const QByteArray& newline,
                   bool quoted = false) {
  QByteArray text = header.isEmpty() ? QByteArray() : header + newline;
  for (const QList<int>& row : rows) {
    QStringList fields;
    for (const int value : row) fields << (quoted ? "\"" + QString::number(value) + "\"" : QString::number(value));
    text += fields.join(',').toUtf8() + newline;
  }
  return text;
}

QByteArray kaggleHeader(int pixels) {
  QByteArray header = "label";
  for (int j = 1; j <= pixels; ++j) header += ",pixel" + QByteArray::number(j);
  return header;
}

/// The IDX files' contents the rows make: labels, then every row's pixels in order.
std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>> expectedBytes(const QList<QList<int>>& rows) {
  std::vector<std::uint8_t> labels, pixels;
  for (const QList<int>& row : rows) {
    labels.push_back(std::uint8_t(row.front()));
    for (int j = 1; j < row.size(); ++j) pixels.push_back(std::uint8_t(row[j]));
  }
  return {labels, pixels};
}

const QStringList kIdxNames{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                            "t10k-labels-idx1-ubyte"};

/// An import of `dir`'s train.csv and test.csv into its `folder`.
CsvImportOptions importOptions(const QTemporaryDir& dir, const QString& folder) {
  CsvImportOptions options;
  options.trainCsv = dir.filePath("train.csv").toStdString();
  options.testCsv = dir.filePath("test.csv").toStdString();
  options.folder = dir.filePath(folder).toStdString();
  return options;
}

/// The loader's checks, as the CLI's import and the window's pass them.
void loadAsTrainingDoes(const std::string& folder) { checkDataset(folder); }

}  // namespace

class TestCsvImport final : public QObject {
  Q_OBJECT

 private slots:
  void writesTheCsvNumbersAsIdxFiles_data() {
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QByteArray>("newline");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("columns");
    QTest::addColumn<bool>("sizeGiven");
    QTest::newRow("Kaggle's: a header, 28x28") << kaggleHeader(784) << QByteArray("\n") << 28 << 28 << false;
    QTest::newRow("no header") << QByteArray() << QByteArray("\n") << 5 << 5 << false;
    QTest::newRow("Windows line ends") << kaggleHeader(16) << QByteArray("\r\n") << 4 << 4 << false;
    QTest::newRow("not square, its size given") << QByteArray() << QByteArray("\n") << 4 << 6 << true;
    // Excel's UTF-8 mark before the first row: not part of its label (the row had been read
    // as a header, and lost).
    QTest::newRow("a UTF-8 mark, no header") << QByteArray() << QByteArray("\n") << 3 << 3 << false;
    QTest::newRow("every field quoted") << QByteArray("\"label\",\"p1\",\"p2\",\"p3\",\"p4\"") << QByteArray("\n") << 2 << 2
                                        << false;
    QTest::newRow("quoted header") << QByteArray("\"label\",\"pixel1\",\"pixel2\",\"pixel3\",\"pixel4\"")
                                   << QByteArray("\n") << 2 << 2 << false;
  }
  void writesTheCsvNumbersAsIdxFiles() {
    QFETCH(QByteArray, header);
    QFETCH(QByteArray, newline);
    QFETCH(int, rows);
    QFETCH(int, columns);
    QFETCH(bool, sizeGiven);
    QTemporaryDir dir;
    const QList<QList<int>> train = rowsOf(23, rows * columns, 3), test = rowsOf(9, rows * columns, 3);
    const QByteArray tag = QTest::currentDataTag();
    const QByteArray mark = tag.contains("UTF-8 mark") ? "\xEF\xBB\xBF" : "";
    const bool quoted = tag.startsWith("every field quoted");
    QVERIFY(testing::writeFile(dir.filePath("train.csv"), mark + csvText(train, header, newline, quoted) + newline));  // a blank line at the end
    QVERIFY(testing::writeFile(dir.filePath("test.csv"), csvText(test, header, newline, quoted)));
    CsvImportOptions options = importOptions(dir, "made/here");  // made, with its parent
    if (sizeGiven) {
      options.rows = rows;
      options.columns = columns;
    }
    const DatasetImportResult result = importCsvDataset(options, loadAsTrainingDoes);
    QCOMPARE(result.trainImages, 23);
    QCOMPARE(result.testImages, 9);
    QCOMPARE(result.rows, rows);
    QCOMPARE(result.columns, columns);
    const QString folder = QString::fromStdString(options.folder);
    for (const auto& [prefix, split] : {std::pair{QString("train"), train}, std::pair{QString("t10k"), test}}) {
      const auto [labels, pixels] = expectedBytes(split);
      const IdxArray images = readIdxFile((folder + "/" + prefix + "-images-idx3-ubyte").toStdString());
      const IdxArray labelFile = readIdxFile((folder + "/" + prefix + "-labels-idx1-ubyte").toStdString());
      QCOMPARE(images.dims, (std::vector<std::uint32_t>{std::uint32_t(split.size()), std::uint32_t(rows), std::uint32_t(columns)}));
      QVERIFY(images.data == pixels);
      QCOMPARE(labelFile.dims, (std::vector<std::uint32_t>{std::uint32_t(split.size())}));
      QVERIFY(labelFile.data == labels);
    }
    const DatasetPair loaded = loadDataset(options.folder);
    QCOMPARE(loaded.train.classes, 3);
    QCOMPARE(loaded.test.height(), rows);
    QCOMPARE(loaded.test.width(), columns);
  }

  // Each is refused before anything is written, naming the file and, where a row is at
  // fault, its line and field.
  void refusesWhatIsNotALabelAndItsPixels_data() {
    QTest::addColumn<QByteArray>("train");
    QTest::addColumn<QByteArray>("test");
    QTest::addColumn<QString>("size");  // "" square
    QTest::addColumn<QString>("expected");
    const QByteArray good = csvText(rowsOf(6, 4, 2), kaggleHeader(4), "\n");
    QTest::newRow("a row cut short") << good + "1,2,3\n" << good << ""
                                     << "train.csv line 8 has 3 fields where line 2 has 5; every row holds a label and the same "
                                        "number of pixels (the file is cut short or damaged)";
    QTest::newRow("a pixel over 255") << good + "1,2,3,256,4\n" << good << ""
                                      << "train.csv line 8, pixel 3, is '256': a pixel is a byte, a whole number 0-255";
    QTest::newRow("pixels scaled to 0-1") << QByteArray("1,0.5,0,0,0\n0,0,0,0,1\n") << good << ""
                                          << "train.csv line 1, pixel 1, is 0.5: pixels are bytes, whole numbers 0-255; "
                                             "these look scaled to 0-1, so multiply them by 255 and round before importing";
    QTest::newRow("a negative label") << good << QByteArray("-1,0,0,0,0\n") << ""
                                      << "test.csv line 1, its label, is '-1': a label is a byte, a whole number 0-255 "
                                         "(the class's number)";
    QTest::newRow("an empty field") << good + "1,2,,3,4\n" << good << ""
                                    << "train.csv line 8, pixel 2, is empty; every row holds a label and its pixels";
    QTest::newRow("words after the first row") << good + "label,a,b,c,d\n" << good << ""
                                               << "train.csv line 8, its label, is 'label'";
    QTest::newRow("an unlabelled test set") << good << QByteArray("pixel0,pixel1,pixel2,pixel3\n0,0,0,0\n") << ""
                                            << "test.csv begins with the column pixel0, not a label: its images have "
                                               "no labels (as Kaggle's digit-recognizer test.csv";
    QTest::newRow("an empty file") << QByteArray() << good << "" << "train.csv holds no rows of a label and its pixels";
    QTest::newRow("a header alone") << good << kaggleHeader(4) + "\n" << ""
                                    << "test.csv holds no rows of a label and its pixels";
    QTest::newRow("labels alone") << QByteArray("1\n2\n") << good << ""
                                  << "train.csv line 1 holds one field; a row holds a label, then its pixels";
    QTest::newRow("not square") << csvText(rowsOf(6, 6, 2), {}, "\n") << csvText(rowsOf(6, 6, 2), {}, "\n") << ""
                                << "train.csv hold 6 pixels after their label, not a square number: give the images' "
                                   "size, rows x columns (ensemble-lab-cli import --size ROWSxCOLUMNS)";
    QTest::newRow("a size of other pixels") << good << good << "3x2"
                                            << "images of 3x2 are 6 pixels, but the rows of ";
    QTest::newRow("splits of two sizes") << good << csvText(rowsOf(6, 9, 2), {}, "\n") << ""
                                         << "train.csv hold 4 pixels after their label where those of ";
  }
  void refusesWhatIsNotALabelAndItsPixels() {
    QFETCH(QByteArray, train);
    QFETCH(QByteArray, test);
    QFETCH(QString, size);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(testing::writeFile(dir.filePath("train.csv"), train));
    QVERIFY(testing::writeFile(dir.filePath("test.csv"), test));
    CsvImportOptions options = importOptions(dir, "out");
    if (!size.isEmpty()) {
      options.rows = size.section('x', 0, 0).toInt();
      options.columns = size.section('x', 1, 1).toInt();
    }
    try {
      importCsvDataset(options, loadAsTrainingDoes);
      QFAIL("a CSV that is not a label and its pixels a row was imported");
    } catch (const DatasetError& e) {
      QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
    }
    QVERIFY(!QFileInfo::exists(dir.filePath("out")));
  }

  // The loader's own refusal (one class here) takes back the files written: nothing is left
  // half done, and the folder can be imported into again.
  void whatTheLoaderRefusesIsTakenBack() {
    QTemporaryDir dir;
    QVERIFY(testing::writeFile(dir.filePath("train.csv"), csvText(rowsOf(6, 4, 1), {}, "\n")));
    QVERIFY(testing::writeFile(dir.filePath("test.csv"), csvText(rowsOf(3, 4, 1), {}, "\n")));
    CsvImportOptions options = importOptions(dir, "out");
    QVERIFY_THROWS_EXCEPTION(DatasetError, importCsvDataset(options, loadAsTrainingDoes));
    QVERIFY(!QFileInfo::exists(dir.filePath("out")));  // nor the folder it made
    // Into a folder that was there: its files go, the folder and what else it held stay.
    QVERIFY(QDir().mkpath(dir.filePath("there")) && testing::writeFile(dir.filePath("there/notes.txt"), "mine"));
    options.folder = dir.filePath("there").toStdString();
    QVERIFY_THROWS_EXCEPTION(DatasetError, importCsvDataset(options, loadAsTrainingDoes));
    QCOMPARE(QDir(dir.filePath("there")).entryList(QDir::Files), QStringList{"notes.txt"});
    options.folder = dir.filePath("out").toStdString();
    QVERIFY(testing::writeFile(dir.filePath("train.csv"), csvText(rowsOf(6, 4, 2), {}, "\n")));
    QVERIFY(testing::writeFile(dir.filePath("test.csv"), csvText(rowsOf(3, 4, 2), {}, "\n")));
    QCOMPARE(importCsvDataset(options, loadAsTrainingDoes).trainImages, 6);
  }

  // A folder that holds a dataset already is left as it was: no file of it is replaced.
  void aFolderHoldingADatasetIsLeftAlone() {
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath("held")));
    testing::writeMnistFolder(dir.filePath("held"), 20, 10, 2, 2, false);
    const QByteArray before = testing::fileBytes(dir.filePath("held/train-images-idx3-ubyte"));
    QVERIFY(testing::writeFile(dir.filePath("train.csv"), csvText(rowsOf(6, 4, 2), {}, "\n")));
    CsvImportOptions options;
    options.trainCsv = options.testCsv = dir.filePath("train.csv").toStdString();
    options.folder = dir.filePath("held").toStdString();
    try {
      importCsvDataset(options, loadAsTrainingDoes);
      QFAIL("a folder holding a dataset was written over");
    } catch (const DatasetError& e) {
      QVERIFY2(QString(e.what()).contains("held already holds train-images-idx3-ubyte; import into a new or empty folder"),
               e.what());
    }
    QCOMPARE(testing::fileBytes(dir.filePath("held/train-images-idx3-ubyte")), before);
  }

  // A dataset folder of CSV files is refused with the command that imports them, where
  // loading (and the window's header reads) had said only "has no train-images-idx3-ubyte".
  void aFolderOfCsvFilesSaysHowToImportThem() {
    QTemporaryDir dir;
    const QString kaggle = dir.filePath("fashion mnist");  // a space: the command quotes it
    QVERIFY(QDir().mkpath(kaggle));
    for (const QString name : {"fashion-mnist_train.csv", "fashion-mnist_test.csv"}) {
      QVERIFY(testing::writeFile(kaggle + "/" + name, csvText(rowsOf(6, 4, 2), kaggleHeader(4), "\n")));
    }
    const QString command = "ensemble-lab-cli import --train '" + kaggle + "/fashion-mnist_train.csv' --test '" + kaggle +
                            "/fashion-mnist_test.csv' --to '" + kaggle + "-idx'";
    for (const auto& read : std::vector<std::function<void()>>{[&] { loadDataset(kaggle.toStdString()); },
                                                                [&] { datasetShape(kaggle.toStdString()); }}) {
      try {
        read();
        QFAIL("a folder of CSV files was read as a dataset");
      } catch (const DatasetError& e) {
        QVERIFY2(QString(e.what()).contains("holds no MNIST-format files; it holds CSV files (fashion-mnist_test.csv, "
                                            "fashion-mnist_train.csv)") &&
                     QString(e.what()).contains("`" + command + "`"),
                 e.what());
      }
    }
    // Names that do not tell the splits apart: the command's placeholders.
    const QString other = dir.filePath("other");
    QVERIFY(QDir().mkpath(other));
    QVERIFY(testing::writeFile(other + "/a.csv", "1,2\n"));
    try {
      loadDataset(other.toStdString());
      QFAIL("a folder of CSV files was read as a dataset");
    } catch (const DatasetError& e) {
      QVERIFY2(QString(e.what()).contains("(a.csv): where they hold a label and its pixels a row, as Kaggle's "
                                          "Fashion-MNIST does, `ensemble-lab-cli import --train TRAIN.csv --test "
                                          "TEST.csv --to FOLDER`"),
               e.what());
    }
  }

  // The real Fashion-MNIST written as Kaggle's CSV comes back as its own IDX files, byte for byte.
  void theRealFashionMnistComesBackWhole() {
    const QString source = "/usr/share/datasets/fashion-mnist";
    if (!QFileInfo::exists(source)) QSKIP("Fashion-MNIST is not installed");
    const DatasetPair real = loadDataset(source.toStdString(), 3000, 1000);
    QTemporaryDir dir;
    for (const auto& [name, split] : {std::pair{QString("train.csv"), &real.train}, std::pair{QString("test.csv"), &real.test}}) {
      const torch::Tensor images = split->images.reshape({split->size(), -1}).contiguous();
      QByteArray text = kaggleHeader(784) + "\n";
      for (int64_t i = 0; i < split->size(); ++i) {
        text += QByteArray::number(qlonglong(split->labels[i].item<int64_t>()));
        const std::uint8_t* row = images[i].data_ptr<std::uint8_t>();
        for (int j = 0; j < 784; ++j) text += ',' + QByteArray::number(row[j]);
        text += '\n';
      }
      QVERIFY(testing::writeFile(dir.filePath(name), text));
    }
    CsvImportOptions options = importOptions(dir, "idx");
    importCsvDataset(options, loadAsTrainingDoes);
    const DatasetPair imported = loadDataset(options.folder);
    QVERIFY(imported.train.images.equal(real.train.images) && imported.train.labels.equal(real.train.labels));
    QVERIFY(imported.test.images.equal(real.test.images) && imported.test.labels.equal(real.test.labels));
  }
};

QTEST_APPLESS_MAIN(TestCsvImport)
#include "TestCsvImport.moc"
