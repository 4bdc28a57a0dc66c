// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy .npz archives (Keras's mnist.npz; numpy.savez and numpy.savez_compressed) into an
// MNIST-format folder: the archives NumPy itself writes (tests/npz_fixtures.py, where the
// test's Python has NumPy) in every form people save datasets in make the same IDX files,
// byte for byte; what is no dataset is refused with its own words; archives written here
// by hand (in every build) are read, and their damaged copies refused; nothing is left
// behind where an import fails; a dataset named by an archive says the import command.
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "core/common/Error.h"
#include "core/data/Dataset.h"
#include "core/data/DatasetSource.h"
#include "core/data/IdxFile.h"
#include "core/data/NpzDataset.h"
#include "core/runs/DatasetImport.h"
#include "tests/NpzWriter.h"
#include "tests/TestSupport.h"

using namespace ensemble;
using npz_files::bytesOf;
using npz_files::npyFile;
using npz_files::zipArchive;

namespace {

constexpr int kRows = 6, kColumns = 5, kTrain = 30, kTest = 10;

/// A split as tests/npz_fixtures.py makes it: pixel j of image i (7 i + 3 j + offset) % 256,
/// label (i + shift) % 4.
struct Split {
  std::vector<std::uint8_t> labels, pixels;
};
Split splitOf(int count, int offset, int shift) {
  Split split;
  for (int i = 0; i < count; ++i) {
    split.labels.push_back(std::uint8_t((i + shift) % 4));
    for (int j = 0; j < kRows * kColumns; ++j) split.pixels.push_back(std::uint8_t((7 * i + 3 * j + offset) % 256));
  }
  return split;
}
const Split kTrainSplit = splitOf(kTrain, 0, 0), kTestSplit = splitOf(kTest, 100, 1);

/// Whether `folder` holds the four IDX files of kTrainSplit and kTestSplit, as the loader reads them.
void verifyImportedSplits(const QString& folder) {
  for (const auto& [prefix, split] : {std::pair{QString("train"), kTrainSplit}, std::pair{QString("t10k"), kTestSplit}}) {
    const IdxArray images = readIdxFile((folder + "/" + prefix + "-images-idx3-ubyte").toStdString());
    const IdxArray labels = readIdxFile((folder + "/" + prefix + "-labels-idx1-ubyte").toStdString());
    const auto count = std::uint32_t(split.labels.size());
    QCOMPARE(images.dims, (std::vector<std::uint32_t>{count, std::uint32_t(kRows), std::uint32_t(kColumns)}));
    QVERIFY(images.data == split.pixels);
    QCOMPARE(labels.dims, (std::vector<std::uint32_t>{count}));
    QVERIFY(labels.data == split.labels);
  }
  const DatasetPair loaded = loadDataset(folder.toStdString());
  QCOMPARE(loaded.train.classes, 4);
}

/// Keras's four arrays of kTrainSplit and kTestSplit, uint8, as .npy files.
QList<std::pair<QByteArray, QByteArray>> kerasArrays() {
  return {{"x_train.npy", npyFile("|u1", {kTrain, kRows, kColumns}, bytesOf(kTrainSplit.pixels))},
          {"y_train.npy", npyFile("|u1", {kTrain}, bytesOf(kTrainSplit.labels))},
          {"x_test.npy", npyFile("|u1", {kTest, kRows, kColumns}, bytesOf(kTestSplit.pixels))},
          {"y_test.npy", npyFile("|u1", {kTest}, bytesOf(kTestSplit.labels))}};
}

NpzImportOptions importOptions(const QString& npz, const QString& folder) {
  NpzImportOptions options;
  options.npz = npz.toStdString();
  options.folder = folder.toStdString();
  return options;
}

/// The message importNpzDataset refuses `npz` with (it must), after checking nothing was written.
QString refusalOf(const QString& npz, const QTemporaryDir& dir, int rows = 0, int columns = 0) {
  NpzImportOptions options = importOptions(npz, dir.filePath("out"));
  options.rows = rows;
  options.columns = columns;
  QString message;
  try {
    importNpzDataset(options, checkDataset);
  } catch (const DatasetError& e) {
    message = QString::fromStdString(e.what());
  }
  if (QFileInfo::exists(dir.filePath("out"))) return "a failed import left " + dir.filePath("out") + " behind";
  return message.isEmpty() ? "imported: " + npz : message;
}

}  // namespace

class TestNpzImport final : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(m_fixtures.isValid());
    QProcess python;
    python.start(ENSEMBLELAB_TEST_PYTHON, {ENSEMBLELAB_SOURCE_DIR "/tests/npz_fixtures.py", m_fixtures.path()});
    QVERIFY(python.waitForFinished(120000));
    m_numpy = python.exitStatus() == QProcess::NormalExit && python.exitCode() == 0;
    QVERIFY2(m_numpy || python.exitCode() == 3, python.readAllStandardError().constData());
  }

  // Every form in which NumPy saves the same dataset makes the same four IDX files.
  void numPysArchivesMakeTheSameIdxFiles_data() {
    QTest::addColumn<QString>("archive");
    QTest::addColumn<int>("rows");  // the --size given, 0: none
    QTest::newRow("numpy.savez, uint8 (Keras's mnist.npz)") << "stored-uint8" << 0;
    QTest::newRow("numpy.savez_compressed, int64 labels") << "compressed-int64-labels" << 0;
    QTest::newRow("Fortran order, float32, N x 1 labels, channels first, big-endian")
        << "fortran-float-channels" << 0;
    QTest::newRow("channels last, float64, big-endian") << "channels-last-float64" << 0;
    QTest::newRow("flattened, its size given") << "flattened" << kRows;
    QTest::newRow("X_train, Y_train, ...") << "capital-names" << 0;
    QTest::newRow("train_x, train_y, ...") << "train-x-names" << 0;
  }
  void numPysArchivesMakeTheSameIdxFiles() {
    if (!m_numpy) QSKIP("the test's Python has no NumPy (ENSEMBLELAB_TEST_PYTHON; scripts/test.sh passes the wheel's)");
    QFETCH(QString, archive);
    QFETCH(int, rows);
    QTemporaryDir dir;
    NpzImportOptions options = importOptions(m_fixtures.filePath(archive + ".npz"), dir.filePath("made/here"));
    if (rows > 0) {
      options.rows = rows;
      options.columns = kColumns;
    }
    const DatasetImportResult result = importNpzDataset(options, checkDataset);
    QCOMPARE(result.trainImages, kTrain);
    QCOMPARE(result.testImages, kTest);
    QCOMPARE(result.rows, kRows);
    QCOMPARE(result.columns, kColumns);
    verifyImportedSplits(dir.filePath("made/here"));
  }

  void numPysArchivesOfOtherThingsAreRefused_data() {
    QTest::addColumn<QString>("archive");
    QTest::addColumn<QString>("expected");
    QTest::newRow("pixels scaled to 0-1")
        << "scaled"
        << "x_train.npy in %1: pixel (0, 0, 1) is 0.0117647059: pixels are bytes, whole numbers 0-255; these look "
           "scaled to 0-1, so multiply them by 255 and round (numpy.round(x * 255).astype(numpy.uint8))";
    QTest::newRow("one-hot labels") << "one-hot"
                                    << "y_train.npy in %1 holds labels of 30x4, one-hot vectors of 4 classes: save each "
                                       "image's class number instead (y.argmax(axis=1))";
    QTest::newRow("arrays without names") << "positional"
                                          << "%1 holds the arrays arr_0, arr_1, arr_2, arr_3; EnsembleLab imports four, "
                                             "x_train, y_train, x_test and y_test";
    QTest::newRow("a label short") << "a-label-short"
                                   << "%1 holds 30 images in x_train.npy and 29 labels in y_train.npy; each image needs "
                                      "its label";
    QTest::newRow("a pixel over 255") << "over-255"
                                      << "x_train.npy in %1: pixel (2, 1, 3) is 256: a pixel is a byte, a whole number 0-255";
    QTest::newRow("a negative label") << "negative-label"
                                      << "y_test.npy in %1: label 5 is -1: a label is the class's number, a whole "
                                         "number 0-255";
    QTest::newRow("labels as text") << "text-labels"
                                    << "y_train.npy in %1 holds text; pixels and labels are numbers 0-255: save them as "
                                       "numpy.uint8";
    QTest::newRow("labels as objects") << "object-labels" << "y_train.npy in %1 holds Python objects";
    QTest::newRow("splits of two sizes") << "two-sizes"
                                         << "%1 holds training images of 6x5 and test images of 5x6; the two splits "
                                            "hold images of one size";
    QTest::newRow("colour") << "colour"
                            << "x_train.npy in %1 has 4 dimensions (30x6x5x3), (count, rows, columns, channels): 3 "
                               "channels, colour images";
    QTest::newRow("no images") << "no-images" << "x_train.npy in %1 holds no images";
    QTest::newRow("flattened, not square") << "flattened"
                                           << "x_train.npy in %1 holds images flattened into rows of 30 pixels, not a "
                                              "square number: give the images' size";
  }
  void numPysArchivesOfOtherThingsAreRefused() {
    if (!m_numpy) QSKIP("the test's Python has no NumPy (ENSEMBLELAB_TEST_PYTHON; scripts/test.sh passes the wheel's)");
    QFETCH(QString, archive);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = m_fixtures.filePath(archive + ".npz");
    const QString message = refusalOf(path, dir);
    QVERIFY2(message.contains(expected.arg(path)), qPrintable(message));
  }

  // Archives written here, stored and deflated, in every build (NumPy or none).
  void archivesWrittenByHandAreRead_data() {
    QTest::addColumn<int>("method");
    QTest::addColumn<bool>("zip64");
    QTest::newRow("stored") << 0 << false;
    QTest::newRow("deflated") << 8 << false;
    QTest::newRow("ZIP64, as past 4 GiB") << 8 << true;
  }
  void archivesWrittenByHandAreRead() {
    QFETCH(int, method);
    QFETCH(bool, zip64);
    QTemporaryDir dir;
    QVERIFY(testing::writeFile(dir.filePath("mnist.npz"), zipArchive(kerasArrays(), method, 0, zip64)));
    importNpzDataset(importOptions(dir.filePath("mnist.npz"), dir.filePath("mnist-idx")), checkDataset);
    verifyImportedSplits(dir.filePath("mnist-idx"));
  }

  void damagedArchivesAreRefused_data() {
    QTest::addColumn<QByteArray>("archive");
    QTest::addColumn<QString>("expected");
    const QByteArray stored = zipArchive(kerasArrays(), 0), deflatedArchive = zipArchive(kerasArrays(), 8);
    QTest::newRow("cut short") << stored.left(stored.size() / 2)
                               << "is not a ZIP archive as a NumPy .npz file is (no end-of-directory record)";
    QTest::newRow("no archive") << QByteArray("label,pixel1,pixel2,pixel3,pixel4\n1,2,3,4,5\n")
                                << "is not a ZIP archive as a NumPy .npz file is (no end-of-directory record)";
    QTest::newRow("a few bytes") << QByteArray("PK\x05\x06")
                                 << "is not a ZIP archive as a NumPy .npz file is (it holds 4 bytes, fewer than a ZIP "
                                    "archive's end record)";
    QByteArray flipped = deflatedArchive;
    flipped[200] = char(flipped[200] ^ 0x55);
    QTest::newRow("a byte changed") << flipped << "is damaged: ";
    QByteArray storedFlipped = stored;
    storedFlipped[400] = char(storedFlipped[400] ^ 0x01);
    QTest::newRow("a stored byte changed") << storedFlipped << "x_train.npy's contents do not match their CRC-32";
    QByteArray directoryLost = stored;
    directoryLost.chop(4);
    directoryLost += QByteArray(2, '\xFF') + QByteArray(2, '\0');  // the directory's offset past the end, no comment
    QTest::newRow("the directory's offset past the end") << directoryLost << "its directory lies outside its";
    QList<std::pair<QByteArray, QByteArray>> arrays = kerasArrays();
    arrays[1].second = "not a .npy file at all";
    QTest::newRow("no .npy inside") << zipArchive(arrays, 0) << "y_train.npy in ";
    arrays = kerasArrays();
    arrays[0].second.chop(7);
    QTest::newRow("an array cut short") << zipArchive(arrays, 0)
                                        << "holds 893 bytes of elements, where its shape (30x6x5) of 1-byte elements "
                                           "needs 900; the file is truncated or corrupt";
    QTest::newRow("bzip2") << zipArchive(kerasArrays(), 12) << "y_train.npy in ";
    QTest::newRow("encrypted") << zipArchive(kerasArrays(), 0, 1) << "is encrypted; save the arrays without a password";
  }
  void damagedArchivesAreRefused() {
    QFETCH(QByteArray, archive);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(testing::writeFile(dir.filePath("mnist.npz"), archive));
    const QString message = refusalOf(dir.filePath("mnist.npz"), dir);
    QVERIFY2(message.contains(expected), qPrintable(message));
    if (QByteArray(QTest::currentDataTag()) == "bzip2") QVERIFY2(message.contains("ZIP method 12"), qPrintable(message));
  }

  // The loader's own checks run before the import says done: a dataset of one class is
  // refused, and its files taken back.
  void aLoaderRefusalTakesTheFilesBack() {
    QList<std::pair<QByteArray, QByteArray>> arrays = kerasArrays();
    arrays[1].second = npyFile("|u1", {kTrain}, QByteArray(kTrain, '\0'));
    arrays[3].second = npyFile("|u1", {kTest}, QByteArray(kTest, '\0'));
    QTemporaryDir dir;
    QVERIFY(testing::writeFile(dir.filePath("mnist.npz"), zipArchive(arrays, 0)));
    const QString message = refusalOf(dir.filePath("mnist.npz"), dir);
    QVERIFY2(message.contains("has one class"), qPrintable(message));
  }

  // A dataset named by an archive, or by a folder that holds some, is told the import.
  void aDatasetNamedByAnArchiveIsToldTheImport() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("keras"));
    const QString npz = dir.filePath("keras/mnist.npz");
    QVERIFY(testing::writeFile(npz, zipArchive(kerasArrays(), 0)));
    const auto messageOf = [](const QString& spec) {
      try {
        loadDataset(spec.toStdString());
      } catch (const DatasetError& e) {
        return QString::fromStdString(e.what());
      }
      return QString("loaded");
    };
    const QString command = "`ensemble-lab-cli import --npz " + npz + " --to " + dir.filePath("keras/mnist-idx") + "`";
    QString message = messageOf(npz);
    QVERIFY2(message.contains("is a file, not a folder; it is a NumPy archive") && message.contains(command),
             qPrintable(message));
    message = messageOf(dir.filePath("keras"));
    QVERIFY2(message.contains("holds no MNIST-format files; it holds the NumPy archive mnist.npz") &&
                 message.contains(command),
             qPrintable(message));
    QVERIFY(testing::writeFile(dir.filePath("keras/fashion.npz"), zipArchive(kerasArrays(), 8)));
    message = messageOf(dir.filePath("keras"));
    QVERIFY2(message.contains("it holds NumPy archives (fashion.npz, mnist.npz)"), qPrintable(message));
    // Arrays saved one a file: told to make them one archive.
    QVERIFY(QDir(dir.path()).mkpath("arrays"));
    for (const auto& [name, contents] : kerasArrays()) QVERIFY(testing::writeFile(dir.filePath("arrays/" + name), contents));
    message = messageOf(dir.filePath("arrays"));
    QVERIFY2(message.contains("it holds NumPy arrays (x_test.npy, x_train.npy, y_test.npy, y_train.npy): save the four "
                              "in one archive, numpy.savez(\"mnist.npz\""),
             qPrintable(message));
    // The command it gives works.
    importNpzDataset(importOptions(npz, QString::fromStdString(importFolderForNpz(npz.toStdString()))), checkDataset);
    verifyImportedSplits(dir.filePath("keras/mnist-idx"));
  }

 private:
  QTemporaryDir m_fixtures;
  bool m_numpy = false;
};

QTEST_APPLESS_MAIN(TestNpzImport)
#include "TestNpzImport.moc"
