// SPDX-License-Identifier: GPL-3.0-or-later
// The IDX reader and dataset loader on valid files of any size and on each kind of
// broken file: every broken one must be rejected with a message naming the file.
#include <functional>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QProcess>
#include <QtTest>

#include "core/common/Error.h"
#include "core/config/ConfigFields.h"
#include "core/data/ClassCoverage.h"
#include "core/data/Dataset.h"
#include "core/data/DatasetSource.h"
#include "core/data/IdxFile.h"
#include "core/data/Inflate.h"
#include "tests/Deflate.h"
#include "tests/TestSupport.h"

using namespace ensemble;

using testing::gzipped;
using testing::idxBytes;
using testing::pattern;

namespace {

void writeFile(const QString& path, const QByteArray& bytes) {
  QVERIFY(testing::writeFile(path, bytes));
}

/// A dataset folder of 4x4 images whose splits have these labels.
void writeSplitsWithLabels(const QTemporaryDir& dir, const QByteArray& trainLabels, const QByteArray& testLabels) {
  for (const auto& [prefix, labels] : {std::pair{QString("train"), trainLabels}, std::pair{QString("t10k"), testLabels}}) {
    const auto count = std::uint32_t(labels.size());
    writeFile(dir.filePath(prefix + "-images-idx3-ubyte"), idxBytes({count, 4, 4}, pattern(labels.size() * 16)));
    writeFile(dir.filePath(prefix + "-labels-idx1-ubyte"), idxBytes({count}, labels));
  }
}

}  // namespace

class TestIdxFile final : public QObject {
  Q_OBJECT

 private slots:
  // Also a gzip file of several members one after another (`cat a.gz b.gz`, pigz, bgzip),
  // which gzip reads as one: only the first had been read ("truncated ... copy it again").
  void readsRawAndGzipAlike_data() {
    QTest::addColumn<int>("gzipMembers");
    QTest::newRow("raw") << 0;
    QTest::newRow("gzip") << 1;
    QTest::newRow("gzip of two members, the header split") << 2;
    QTest::newRow("gzip of three members") << 3;
  }
  void readsRawAndGzipAlike() {
    QFETCH(int, gzipMembers);
    QTemporaryDir dir;
    const QByteArray payload = pattern(5 * 7 * 3);
    const QByteArray raw = idxBytes({5, 7, 3}, payload);
    const QString path = dir.filePath("images");
    const std::vector<int> cuts = gzipMembers == 2 ? std::vector<int>{0, 3, int(raw.size())}
                                                   : std::vector<int>{0, 20, 60, int(raw.size())};
    QByteArray file = raw;
    if (gzipMembers == 1) file = gzipped(raw);
    if (gzipMembers > 1) {
      file.clear();
      for (std::size_t i = 0; i + 1 < cuts.size(); ++i) file += gzipped(raw.mid(cuts[i], cuts[i + 1] - cuts[i]));
    }
    writeFile(path, file);
    const IdxArray array = readIdxFile(path.toStdString());
    QCOMPARE(array.dims, (std::vector<std::uint32_t>{5, 7, 3}));
    QCOMPARE(array.data.size(), std::size_t(payload.size()));
    QVERIFY(std::equal(array.data.begin(), array.data.end(),
                       reinterpret_cast<const std::uint8_t*>(payload.constData())));
  }

  void loadsFoldersOfAnySizeAndSampleCount_data() {
    QTest::addColumn<int>("train");
    QTest::addColumn<int>("test");
    QTest::addColumn<int>("side");
    QTest::addColumn<bool>("gz");
    QTest::newRow("13 samples of 9x9, raw") << 13 << 7 << 9 << false;
    QTest::newRow("101 samples of 32x32, gzip") << 101 << 17 << 32 << true;
  }
  void loadsFoldersOfAnySizeAndSampleCount() {
    QFETCH(int, train);
    QFETCH(int, test);
    QFETCH(int, side);
    QFETCH(bool, gz);
    QTemporaryDir dir;
    testing::writeMnistFolder(dir.path(), train, test, side, side, gz);
    const DatasetPair pair = loadDataset(dir.path().toStdString());
    QCOMPARE(pair.train.size(), int64_t(train));
    QCOMPARE(pair.test.size(), int64_t(test));
    QCOMPARE(pair.train.height(), int64_t(side));
    QCOMPARE(pair.train.width(), int64_t(side));
    QCOMPARE(pair.train.labels[3].item<int64_t>(), int64_t(3));
    QCOMPARE(pair.test.labels[2].item<int64_t>(), int64_t(6));
    QCOMPARE(pair.train.images[1][0][0][0].item<int>(), (1 * side * side * 37 + 11) % 256);
    QCOMPARE(pair.train.classes, int64_t(10));
    QCOMPARE(pair.test.classes, int64_t(10));
    const DatasetPair limited = loadDataset(dir.path().toStdString(), 5, 3);
    QCOMPARE(limited.train.size(), int64_t(5));
    QCOMPARE(limited.test.size(), int64_t(3));
    // The classes are the files', not the first samples': a limit trains the same model.
    QCOMPARE(limited.train.classes, int64_t(10));
  }

  // Downloads name the four files in more ways than MNIST's own: some MNIST mirrors with a dot
  // (train-images.idx3-ubyte), EMNIST behind a prefix (emnist-letters-train-images-idx3-ubyte.gz).
  // Each folder here holds a second, smaller set under another name where the row says so: the
  // sample counts tell which set was loaded.
  void findsTheFourFilesUnderTheNamesDownloadsUse_data() {
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("separator");
    QTest::addColumn<bool>("gz");
    QTest::addColumn<QString>("besideIt");  // a smaller set's prefix and separator, or empty
    QTest::newRow("dotted, as MNIST mirrors ship it") << ""
                                                      << "." << false << "";
    QTest::newRow("EMNIST's prefix, gzip") << "emnist-letters-"
                                           << "-" << true << "";
    QTest::newRow("MNIST's names beside a prefixed copy: MNIST's win") << ""
                                                                       << "-" << false << "copy-|-";
    QTest::newRow("MNIST's spelling beside the dotted one: MNIST's wins") << ""
                                                                          << "-" << false << "|.";
    QTest::newRow("the dotted set beside a prefixed one: the unprefixed wins")
        << ""
        << "." << true << "old-|-";
  }
  void findsTheFourFilesUnderTheNamesDownloadsUse() {
    QFETCH(QString, prefix);
    QFETCH(QString, separator);
    QFETCH(bool, gz);
    QFETCH(QString, besideIt);
    QTemporaryDir dir;
    QVERIFY(testing::writeNamedMnistSet(dir.path(), prefix, separator, 23, 11, 6, 5, gz));
    if (!besideIt.isEmpty())
      QVERIFY(testing::writeNamedMnistSet(dir.path(), besideIt.section('|', 0, 0), besideIt.section('|', 1, 1), 7, 3, 6, 5, gz));
    const std::string folder = dir.path().toStdString();
    DatasetPair pair;
    try {
      pair = loadDataset(folder);
    } catch (const DatasetError& e) {
      QFAIL(e.what());
    }
    QCOMPARE(pair.train.size(), int64_t(23));
    QCOMPARE(pair.test.size(), int64_t(11));
    QCOMPARE(pair.train.width(), int64_t(5));
    // The window's form reads the same files' headers as the dataset is picked.
    QCOMPARE(trainingSampleCount(folder), int64_t(23));
    QCOMPARE(datasetShape(folder).testSamples, int64_t(11));
    QCOMPARE(testImageSize(folder).height, int64_t(6));
  }

  // gunzip -k leaves the raw file beside its .gz: the raw one is read. A .gz whose header
  // says it holds other data (a newer download beside an older unpacked copy) is refused,
  // naming both: which one to train on is the user's to say (the raw one had been read
  // without a word).
  void aRawFileBesideADifferentGzipIsRefused() {
    QTemporaryDir dir, gzipped;
    testing::writeMnistFolder(dir.path(), 20, 10, 8, 8, false);
    testing::writeMnistFolder(gzipped.path(), 20, 10, 8, 8, true);
    QVERIFY(QFile::copy(gzipped.filePath("train-images-idx3-ubyte.gz"), dir.filePath("train-images-idx3-ubyte.gz")));
    QCOMPARE(loadDataset(dir.path().toStdString()).train.size(), int64_t(20));  // the same header: one file, read raw
    QTemporaryDir newer;
    testing::writeMnistFolder(newer.path(), 30, 10, 8, 8, true);
    QVERIFY(QFile::remove(dir.filePath("train-images-idx3-ubyte.gz")));
    QVERIFY(QFile::copy(newer.filePath("train-images-idx3-ubyte.gz"), dir.filePath("train-images-idx3-ubyte.gz")));
    try {
      loadDataset(dir.path().toStdString());
      QFAIL("a raw file beside a .gz of other data was read");
    } catch (const DatasetError& e) {
      QVERIFY2(QString(e.what()).contains("holds train-images-idx3-ubyte (20 x 8 x 8) and train-images-idx3-ubyte.gz "
                                          "(30 x 8 x 8): two different files for one; remove or move the one not to "
                                          "train on"),
               e.what());
    }
  }

  void refusesAFolderWithoutOneWholeDataset_data() {
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("expected");
    QTest::newRow("EMNIST's download: several prefixed sets")
        << "two sets"
        << "holds 2 datasets (emnist-digits-train-images-idx3-ubyte, "
           "emnist-letters-train-images-idx3-ubyte";
    QTest::newRow("a prefixed set without its test labels")
        << "partial"
        << "has no emnist-letters-t10k-labels-idx1-ubyte (or "
           "emnist-letters-t10k-labels-idx1-ubyte.gz)";
    QTest::newRow("torchvision's MNIST folder, whose raw/ holds the files")
        << "torchvision"
        << "holds no MNIST-format files, but its subfolder DIR/MNIST/raw does: name that "
           "subfolder in";
    QTest::newRow("torchvision's root, two levels above the files")
        << "torchvision root"
        << "holds no MNIST-format files, but its subfolder DIR/MNIST/raw does: name that "
           "subfolder in";
    QTest::newRow("a folder of other files") << "other"
                                             << "has no train-images-idx3-ubyte";
    // A name that is there but is no file had been told "has no" while ls showed it.
    QTest::newRow("a folder in a file's place")
        << "folder" << "has t10k-images-idx3-ubyte, but it is a folder, not a file; put the IDX file there in its place";
    QTest::newRow("a pipe in a file's place")
        << "fifo" << "has t10k-labels-idx1-ubyte, but it is a pipe (FIFO), not a file";
    QTest::newRow("a link to nothing")
        << "broken link" << "has t10k-images-idx3-ubyte, but it is a link to DIR/gone, which does not exist";
  }
  void refusesAFolderWithoutOneWholeDataset() {
    QFETCH(QString, layout);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    expected.replace("DIR", dir.path());
    QString folder = dir.path();
    const auto prefixAll = [&](const QString& prefix) {
      for (const QString& name : QDir(dir.path()).entryList({"t*-ubyte"}, QDir::Files)) {
        QVERIFY(QFile::rename(dir.filePath(name), dir.filePath(prefix + name)));
      }
    };
    if (layout == "two sets") {
      testing::writeMnistFolder(dir.path(), 20, 10, 8, 8, false);
      prefixAll("emnist-letters-");
      testing::writeMnistFolder(dir.path(), 20, 10, 8, 8, false);
      prefixAll("emnist-digits-");
    } else if (layout == "partial") {
      testing::writeMnistFolder(dir.path(), 20, 10, 8, 8, false);
      prefixAll("emnist-letters-");
      QVERIFY(QFile::remove(dir.filePath("emnist-letters-t10k-labels-idx1-ubyte")));
    } else if (layout == "torchvision") {
      QVERIFY(QDir(dir.path()).mkpath("MNIST/raw") && QDir(dir.path()).mkpath("MNIST/processed"));
      testing::writeMnistFolder(dir.filePath("MNIST/raw"), 20, 10, 8, 8, false);
      folder = dir.filePath("MNIST");
    } else if (layout == "torchvision root") {  // the root= given to torchvision.datasets.MNIST
      QVERIFY(QDir(dir.path()).mkpath("MNIST/raw") && QDir(dir.path()).mkpath("MNIST/processed"));
      testing::writeMnistFolder(dir.filePath("MNIST/raw"), 20, 10, 8, 8, false);
    } else if (layout == "folder" || layout == "fifo" || layout == "broken link") {
      testing::writeMnistFolder(dir.path(), 20, 10, 8, 8, false);
      const QString file = dir.filePath(layout == "fifo" ? "t10k-labels-idx1-ubyte" : "t10k-images-idx3-ubyte");
      QVERIFY(QFile::remove(file));
      if (layout == "folder") QVERIFY(QDir().mkpath(file));
      if (layout == "fifo") QCOMPARE(QProcess::execute("mkfifo", {file}), 0);
      if (layout == "broken link") QVERIFY(QFile::link(dir.filePath("gone"), file));
    } else {
      writeFile(dir.filePath("notes.txt"), "not a dataset");
      writeFile(dir.filePath("train-images-idx1-ubyte"),
                idxBytes({4}, QByteArray(4, 1)));  // images are idx3
    }
    try {
      loadDataset(folder.toStdString());
      QFAIL("a folder without one whole dataset was accepted");
    } catch (const DatasetError& e) {
      QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
    }
    try {
      trainingSampleCount(folder.toStdString());
      QFAIL("the form's count was given for a folder without one whole dataset");
    } catch (const DatasetError& e) {
      QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
    }
  }

  void loadsTheRealFashionMnist() {
    const DatasetPair pair = loadDataset("fashion-mnist");
    QCOMPARE(pair.train.size(), int64_t(60000));
    QCOMPARE(pair.test.size(), int64_t(10000));
    QCOMPARE(pair.train.height(), int64_t(28));
    QCOMPARE(pair.train.labels.min().item<int64_t>(), int64_t(0));
    QCOMPARE(pair.train.labels.max().item<int64_t>(), int64_t(9));
    QCOMPARE(pair.train.classes, int64_t(10));
    // Fashion-MNIST's classes are balanced: 6000 training images each.
    QCOMPARE(pair.train.labels.bincount().min().item<int64_t>(), int64_t(6000));
  }

  // A dataset's classes are its largest label + 1, over both splits: EMNIST's letters (1-26, 0
  // unused), a class only the test split has, or all 256 a label byte can hold.
  void takesAnyNumberOfClasses_data() {
    QTest::addColumn<QByteArray>("trainLabels");
    QTest::addColumn<QByteArray>("testLabels");
    QTest::addColumn<int>("classes");
    QByteArray letters(52, 0), someLetters(5, 0), all(256, 0);
    for (int i = 0; i < 52; ++i) letters[i] = char(1 + i % 26);
    for (int i = 0; i < 5; ++i) someLetters[i] = char(1 + i);
    for (int i = 0; i < 256; ++i) all[i] = char(i);
    QTest::newRow("EMNIST letters: 1-26") << letters << someLetters << 27;
    QTest::newRow("a class only in the test split")
        << QByteArray("\0\1\2\3\4", 5) << QByteArray("\5\6\0", 3) << 7;
    QTest::newRow("256 classes") << all << all.left(9) << 256;
  }
  void takesAnyNumberOfClasses() {
    QFETCH(QByteArray, trainLabels);
    QFETCH(QByteArray, testLabels);
    QFETCH(int, classes);
    QTemporaryDir dir;
    writeSplitsWithLabels(dir, trainLabels, testLabels);
    const DatasetPair pair = loadDataset(dir.path().toStdString());
    QCOMPARE(pair.train.classes, int64_t(classes));
    QCOMPARE(pair.test.classes, int64_t(classes));
    for (int i = 0; i < trainLabels.size(); ++i) {
      QCOMPARE(pair.train.labels[i].item<int64_t>(),
               int64_t(uint8_t(trainLabels[i])));  // labels kept as they are
    }
  }

  // Classes the test split has and training never sees are said as a run starts (with the
  // test images they cost, and the train limit where it may be why); labels that skip
  // values (EMNIST letters' 1-26) are not.
  void saysWhichClassesTrainingNeverSees_data() {
    QTest::addColumn<QByteArray>("trainLabels");
    QTest::addColumn<QByteArray>("testLabels");
    QTest::addColumn<int>("trainLimit");
    QTest::addColumn<QString>("notice");  // empty: none
    QByteArray letters(52, 0), sorted(40, 0), mixed(40, 0);
    for (int i = 0; i < 52; ++i) letters[i] = char(1 + i % 26);
    for (int i = 0; i < 40; ++i) sorted[i] = char(i / 4), mixed[i] = char(i % 10);
    QTest::newRow("EMNIST letters: 1-26") << letters << letters.left(9) << 0 << "";
    QTest::newRow("every class trained") << mixed << mixed << 0 << "";
    QTest::newRow("classes only in the test split")
        << QByteArray("\0\1\2\3\4", 5) << QByteArray("\5\6\0\6", 4) << 0
        << "the training split holds no image of classes 5, 6 (2 of 7 classes), which the test split holds 3 images "
           "of: the models cannot learn them, and every such test image counts as a miss";
    QTest::newRow("a limit on a file sorted by class") << sorted << mixed << 8 << "the training split holds no image of "
        "classes 2-9 (8 of 10 classes), which the test split holds 32 images of: the models cannot learn them, and "
        "every such test image counts as a miss; train_limit 8 keeps the training file's first images, which may be "
        "sorted by class: a larger limit, or a file in mixed order, trains on every class";
  }
  void saysWhichClassesTrainingNeverSees() {
    QFETCH(QByteArray, trainLabels);
    QFETCH(QByteArray, testLabels);
    QFETCH(int, trainLimit);
    QFETCH(QString, notice);
    QTemporaryDir dir;
    writeSplitsWithLabels(dir, trainLabels, testLabels);
    const DatasetPair pair = loadDataset(dir.path().toStdString(), trainLimit);
    std::vector<std::string> said = classCoverageNotices(pair, pair.train.classes, trainLimit);
    for (std::string& line : said) line = phraseMessage(line, FieldNaming::Keys);
    QCOMPARE(said.size(), std::size_t(notice.isEmpty() ? 0 : 1));
    if (!notice.isEmpty()) QCOMPARE(QString::fromStdString(said.front()), notice);
  }

  void classListsReadAsAPersonWritesThem() {
    QCOMPARE(formatClassList({5}), std::string("5"));
    QCOMPARE(formatClassList({1, 2}), std::string("1, 2"));
    QCOMPARE(formatClassList({1, 2, 3, 4, 5, 6, 7, 8, 9}), std::string("1-9"));
    QCOMPARE(formatClassList({0, 3, 7, 8, 9, 11, 12}), std::string("0, 3, 7-9, 11, 12"));
    QCOMPARE(formatClassList({}), std::string());
  }

  void rejectsBrokenFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray good = idxBytes({4, 2, 2}, pattern(16));
    QByteArray wrongMagic = good;
    wrongMagic[0] = char(0x1f);
    wrongMagic[1] = char(0x00);
    QTest::newRow("wrong magic") << wrongMagic << "wrong IDX magic number";
    QTest::newRow("float elements") << idxBytes({4}, pattern(16), 0x0D) << "type float";
    // Zeros (a file not yet written, a sparse download) had held "elements of type unknown".
    QTest::newRow("zeros") << QByteArray(64, '\0')
                           << "is not an IDX file: its magic number 0x00000000 names no IDX element type";
    QTest::newRow("truncated payload")
        << good.left(good.size() - 3)
        << "truncated: its header declares 3 dimensions, 4 x 2 x 2, so 16 bytes";
    QTest::newRow("truncated header") << good.left(9) << "truncated inside its header";
    QTest::newRow("trailing bytes") << good + QByteArray(5, 'x')
                                    << "has 5 bytes after the data its header declares (3 dimensions, 4 x 2 x 2, so 16 "
                                       "bytes of data); the file is corrupt";
    // An image file whose magic number says 1 dimension: its shape is said, and what to look at.
    QTest::newRow("images under a label file's magic number")
        << idxBytes({4}, pattern(16)) << "has 12 bytes after the data its header declares (1 dimension, 4, so 4 bytes "
                                         "of data); the file is corrupt, or its magic number declares too few dimensions";
    QTest::newRow("empty file") << QByteArray() << "not an IDX file";
    QTest::newRow("zero dimensions") << idxBytes({}, {}) << "dimensions";
    // A header that claims 4 billion^2 items must be rejected from the file size, without
    // trying to allocate what it claims.
    QTest::newRow("absurd claim") << idxBytes({0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, pattern(8))
                                  << "4294967295 x 4294967295 x 4294967295, so more than";
    // Compressed, the same claim sets how far to decompress: counted saturating, not wrapped
    // (2^20 x 2^15 x 2^30 wrapped to 17 bytes: "decompresses to more than 17 bytes").
    QTest::newRow("absurd claim, gzip") << gzipped(idxBytes({1u << 20, 1u << 15, 1u << 30}, pattern(8)))
                                        << "1048576 x 32768 x 1073741824, so more than 34359738368 bytes of data";
    QTest::newRow("gzip cut short") << gzipped(good).left(20) << "truncated";
    QByteArray corruptGzip = gzipped(good);
    corruptGzip[12] = char(corruptGzip[12] ^ 0x55);
    corruptGzip[13] = char(corruptGzip[13] ^ 0x55);
    QTest::newRow("gzip corrupt") << corruptGzip << "images";
  }
  void rejectsBrokenFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath("images");
    writeFile(path, bytes);
    try {
      readIdxFile(path.toStdString());
      QFAIL("a broken file was accepted");
    } catch (const DatasetError& e) {
      const QString message = QString::fromStdString(e.what());
      QVERIFY2(message.contains(expected), qPrintable(message));
      QVERIFY2(message.contains(path), qPrintable(message));
    }
  }

  // The one inflate loop under the .gz reader and the .npz reader: where it ends and what it
  // keeps, at the edges a file can put it (a limit met exactly, a second member, bytes after).
  void inflateStopsWhereItShouldAndSaysWhy_data() {
    using test_files::Framing;
    QTest::addColumn<QByteArray>("compressed");
    QTest::addColumn<bool>("gzip");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<int>("ending");
    QTest::addColumn<QByteArray>("expected");
    const QByteArray raw = pattern(200000);  // more than one 64 KiB round of output
    const QByteArray gz = test_files::deflated(raw, Framing::Gzip);
    const QByteArray bare = test_files::deflated(raw, Framing::RawDeflate);
    using E = Inflated::Ending;
    QTest::newRow("gzip, whole") << gz << true << qint64(raw.size()) << int(E::Complete) << raw;
    QTest::newRow("gzip, limit one short") << gz << true << qint64(raw.size() - 1) << int(E::PastLimit) << raw.left(raw.size() - 1);
    QTest::newRow("gzip, header only") << gz << true << qint64(20) << int(E::PastLimit) << raw.left(20);
    QTest::newRow("gzip, two members") << gzipped(raw.left(7)) + gzipped(raw.mid(7)) << true << qint64(raw.size())
                                       << int(E::Complete) << raw;
    QTest::newRow("gzip, bytes after the member") << gz + "not gzip" << true << qint64(raw.size())
                                                  << int(E::Complete) << raw;
    QTest::newRow("gzip, cut short") << gz.left(gz.size() / 2) << true << qint64(raw.size()) << int(E::CutShort)
                                     << QByteArray();
    QTest::newRow("gzip, not gzip") << QByteArray("plain text, not gzip") << true << qint64(100) << int(E::Corrupt)
                                    << QByteArray();
    QTest::newRow("raw, whole") << bare << false << qint64(raw.size()) << int(E::Complete) << raw;
    // A second stream is no member of anything: the first is the whole entry.
    QTest::newRow("raw, a second stream after") << bare + bare << false << qint64(2 * raw.size())
                                                << int(E::Complete) << raw;
    QTest::newRow("raw, limit one short") << bare << false << qint64(raw.size() - 1) << int(E::PastLimit)
                                          << raw.left(raw.size() - 1);
    QTest::newRow("raw, cut short") << bare.left(bare.size() - 3) << false << qint64(raw.size()) << int(E::CutShort)
                                    << QByteArray();
    QTest::newRow("raw, gzip framing") << gz << false << qint64(raw.size()) << int(E::Corrupt) << QByteArray();
  }
  void inflateStopsWhereItShouldAndSaysWhy() {
    QFETCH(QByteArray, compressed);
    QFETCH(bool, gzip);
    QFETCH(qint64, limit);
    QFETCH(int, ending);
    QFETCH(QByteArray, expected);
    const Inflated inflated = inflateUpTo(reinterpret_cast<const std::uint8_t*>(compressed.constData()),
                                          std::size_t(compressed.size()),
                                          gzip ? Compression::Gzip : Compression::RawDeflate, std::uint64_t(limit));
    QCOMPARE(int(inflated.ending), ending);
    if (inflated.ending == Inflated::Ending::Corrupt) QVERIFY(!inflated.corruption.empty());  // zlib's words
    if (ending == int(Inflated::Ending::Complete) || ending == int(Inflated::Ending::PastLimit)) {
      QCOMPARE(QByteArray(reinterpret_cast<const char*>(inflated.bytes.data()), int(inflated.bytes.size())), expected);
    }
    QVERIFY(inflated.bytes.size() <= std::size_t(limit));
  }

  // Image files of the shapes other tools write are refused with what to do, alike where the
  // whole folder is loaded and where only the headers are read (the window's dataset line, the
  // evaluation's image size): each had said "has 4 dimensions", or "4-dimensional data".
  void imageFilesOfOtherShapesSayWhatToDo_data() {
    QTest::addColumn<std::vector<std::uint32_t>>("dims");
    QTest::addColumn<QString>("expected");
    QTest::newRow("colour, channels first")
        << std::vector<std::uint32_t>{10, 3, 8, 7}
        << "has 4 dimensions (10x3x8x7), (count, channels, rows, columns): 3 channels, colour images; an image file "
           "has 3 (count, rows, columns) (or 4 with one channel), one byte a pixel: convert the images to greyscale and "
           "write them as 10x8x7";
    QTest::newRow("colour, channels last")
        << std::vector<std::uint32_t>{10, 8, 7, 4}
        << "has 4 dimensions (10x8x7x4), (count, rows, columns, channels): 4 channels, colour images; an image file "
           "has 3 (count, rows, columns) (or 4 with one channel), one byte a pixel: convert the images to greyscale and "
           "write them as 10x8x7";
    QTest::newRow("four dimensions, no channels") << std::vector<std::uint32_t>{10, 8, 7, 6}
                                                  << "has 4 dimensions (10x8x7x6); an image file has 3 (count, rows, columns)";
    QTest::newRow("flattened") << std::vector<std::uint32_t>{10, 56}
                               << "has 2 dimensions (10x56), images flattened into rows of pixels; an image file has 3 "
                                  "(count, rows, columns): write it with each image's rows and columns (10xROWSxCOLUMNS)";
  }
  void imageFilesOfOtherShapesSayWhatToDo() {
    QFETCH(std::vector<std::uint32_t>, dims);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    testing::writeMnistFolder(dir.path(), 20, 10, 8, 7, false);
    const QString images = dir.filePath("t10k-images-idx3-ubyte");
    int size = 1;
    for (const std::uint32_t dim : dims) size *= int(dim);
    writeFile(images, idxBytes(dims, pattern(size)));
    for (const auto& read : std::vector<std::function<void()>>{[&] { loadDataset(dir.path().toStdString()); },
                                                                [&] { testImageSize(dir.path().toStdString()); }}) {
      try {
        read();
        QFAIL("images of another shape were accepted");
      } catch (const DatasetError& e) {
        QCOMPARE(QString::fromStdString(e.what()), images + " " + expected);
      }
    }
  }

  // One channel, last (NumPy's N x H x W x 1) or first (PyTorch's N x 1 x H x W), holds the
  // same bytes as N x H x W: read as those, alike by the loader and the header reads.
  void imagesWithOneChannelAreRead_data() {
    QTest::addColumn<std::vector<std::uint32_t>>("dims");
    QTest::newRow("last") << std::vector<std::uint32_t>{10, 8, 7, 1};
    QTest::newRow("first") << std::vector<std::uint32_t>{10, 1, 8, 7};
  }
  void imagesWithOneChannelAreRead() {
    QFETCH(std::vector<std::uint32_t>, dims);
    QTemporaryDir plain, channel;
    testing::writeMnistFolder(plain.path(), 20, 10, 8, 7, false);
    testing::writeMnistFolder(channel.path(), 20, 10, 8, 7, false);
    const QByteArray pixels = testing::fileBytes(plain.filePath("t10k-images-idx3-ubyte")).mid(16);
    writeFile(channel.filePath("t10k-images-idx3-ubyte"), idxBytes(dims, pixels));
    const DatasetPair expected = loadDataset(plain.path().toStdString());
    const DatasetPair read = loadDataset(channel.path().toStdString());
    QCOMPARE(read.test.images.sizes().vec(), expected.test.images.sizes().vec());
    QVERIFY(read.test.images.equal(expected.test.images));
    QVERIFY(read.test.labels.equal(expected.test.labels));
    const ImageSize size = testImageSize(channel.path().toStdString());
    QCOMPARE(size.height, 8);
    QCOMPARE(size.width, 7);
    QCOMPARE(datasetShape(channel.path().toStdString()).testSamples, 10);
  }

  void rejectsInconsistentFolders_data() {
    QTest::addColumn<QString>("breakWhat");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing folder") << "folder"
                                    << "does not exist";
    QTest::newRow("missing file") << "file"
                                  << "has no t10k-labels-idx1-ubyte";
    QTest::newRow("count mismatch") << "count"
                                    << "labels; the two files must come from the same split";
    // One stray byte (200 in a 10-class folder): 201 classes of which 11 occur.
    QTest::newRow("a stray label")
        << "label"
        << "(at index 17), so classes 0-200, but only 11 of those 201 numbers occur";
    QTest::newRow("one class") << "one class"
                               << "has one class";
    QTest::newRow("mixed image sizes") << "size"
                                       << "mixes image sizes";
  }
  void rejectsInconsistentFolders() {
    QFETCH(QString, breakWhat);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    testing::writeMnistFolder(dir.path(), 20, 10, 8, 8, false);
    QString folder = dir.path();
    if (breakWhat == "folder") folder += "/nope";
    if (breakWhat == "file") QVERIFY(QFile::remove(dir.filePath("t10k-labels-idx1-ubyte")));
    if (breakWhat == "count")
      writeFile(dir.filePath("train-labels-idx1-ubyte"), idxBytes({19}, QByteArray(19, 1)));
    if (breakWhat == "label") {
      QByteArray labels(20, 2);
      labels[17] = char(200);
      writeFile(dir.filePath("train-labels-idx1-ubyte"), idxBytes({20}, labels));
    }
    if (breakWhat == "one class") {
      writeFile(dir.filePath("train-labels-idx1-ubyte"), idxBytes({20}, QByteArray(20, 0)));
      writeFile(dir.filePath("t10k-labels-idx1-ubyte"), idxBytes({10}, QByteArray(10, 0)));
    }
    if (breakWhat == "size")
      writeFile(dir.filePath("t10k-images-idx3-ubyte"), idxBytes({10, 9, 8}, pattern(720)));
    try {
      loadDataset(folder.toStdString());
      QFAIL("an inconsistent dataset was accepted");
    } catch (const DatasetError& e) {
      QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
    }
  }
};

QTEST_APPLESS_MAIN(TestIdxFile)
#include "TestIdxFile.moc"
