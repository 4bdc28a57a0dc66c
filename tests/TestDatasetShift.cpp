// SPDX-License-Identifier: GPL-3.0-or-later
// Dataset shift: each kind checked against an independent computation on a fixture
// (rot90, a zero-filled roll, the contrast formula, noise statistics), level 0 the very
// same images, the same seed the same draws, and each bad --shift named.
#include <torch/torch.h>

#include <QImage>
#include <QtTest>

#include "core/common/Error.h"
#include "core/data/Dataset.h"
#include "core/data/DatasetSource.h"
#include "core/data/ShiftImages.h"

using namespace ensemble;

namespace {

/// Four 8x8 images, different and asymmetric, uint8 [4, 1, 8, 8].
torch::Tensor fixture() {
  return (torch::arange(4 * 64, torch::kInt64).view({4, 1, 8, 8}) * 37 % 251).to(torch::kUInt8);
}

/// `image` [1, H, W] moved by (dx, dy) whole pixels, zeros where nothing moved in.
torch::Tensor rolledWithZeros(const torch::Tensor& image, int dx, int dy) {
  torch::Tensor out = torch::zeros_like(image);
  const int64_t h = image.size(1), w = image.size(2);
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      if (x - dx >= 0 && x - dx < w && y - dy >= 0 && y - dy < h) out[0][y][x] = image[0][y - dy][x - dx];
    }
  }
  return out;
}

/// uint8 images [N, 1, H, W] side by side in one grey image.
QImage strip(const torch::Tensor& images) {
  const int n = int(images.size(0)), h = int(images.size(2)), w = int(images.size(3));
  QImage image(n * w, h, QImage::Format_Grayscale8);
  const torch::Tensor pixels = images.contiguous().cpu();
  for (int i = 0; i < n; ++i) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) image.scanLine(y)[i * w + x] = pixels[i][0][y][x].item<std::uint8_t>();
    }
  }
  return image;
}

QString refusal(const std::string& text) {
  try {
    parseShifts(text);
  } catch (const ConfigError& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

}  // namespace

class TestDatasetShift final : public QObject {
  Q_OBJECT

 private slots:
  void levelZeroIsTheSameImages() {
    const torch::Tensor images = fixture();
    for (const auto& shift : parseShifts("rotate:0") ) QVERIFY(applyShift(images, shift, 1).is_same(images));
    for (const char* kind : {"translate:0", "noise:0", "contrast:0"}) {
      QVERIFY(applyShift(images, parseShifts(kind).front(), 1).is_same(images));
    }
  }

  // A quarter turn moves pixel centres onto pixel centres: bilinear sampling is exact.
  void rotateByAQuarterTurnIsRot90() {
    const torch::Tensor images = fixture();
    const torch::Tensor turned = applyShift(images, {ShiftKind::Rotate, 90}, 0);
    QVERIFY(torch::equal(turned, torch::rot90(images, 1, {2, 3})));
    const torch::Tensor back = applyShift(turned, {ShiftKind::Rotate, 270}, 0);
    QVERIFY(torch::equal(back, images));
    // A small angle changes the images but keeps their size and type.
    const torch::Tensor tilted = applyShift(images, {ShiftKind::Rotate, 15}, 0);
    QCOMPARE(tilted.sizes(), images.sizes());
    QVERIFY(!torch::equal(tilted, images));
  }

  // Whole pixels: each image is one of its four zero-filled rolls, the directions vary
  // between images, and the same seed draws the same directions.
  void translateMovesEachImageOneWay() {
    const torch::Tensor images = torch::cat({fixture(), fixture(), fixture()});  // 12 images
    const torch::Tensor moved = applyShift(images, {ShiftKind::Translate, 2}, 42);
    QVERIFY(torch::equal(moved, applyShift(images, {ShiftKind::Translate, 2}, 42)));
    QSet<int> directions;
    for (int64_t i = 0; i < images.size(0); ++i) {
      const std::pair<int, int> steps[] = {{2, 0}, {-2, 0}, {0, 2}, {0, -2}};
      int found = -1;
      for (int d = 0; d < 4; ++d) {
        if (torch::equal(moved[i], rolledWithZeros(images[i], steps[d].first, steps[d].second))) found = d;
      }
      QVERIFY2(found >= 0, qPrintable(QString("image %1 is not a 2-pixel move").arg(i)));
      directions.insert(found);
    }
    QVERIFY(directions.size() > 1);
  }

  void contrastMovesPixelsTowardsTheMean() {
    const torch::Tensor images = fixture();
    const torch::Tensor reduced = applyShift(images, {ShiftKind::Contrast, 0.25}, 0);
    const torch::Tensor pixels = images.to(torch::kFloat64);
    const torch::Tensor mean = pixels.mean({1, 2, 3}, true);
    const torch::Tensor expected = (mean + 0.75 * (pixels - mean)).round();
    QVERIFY((reduced.to(torch::kFloat64) - expected).abs().max().item<double>() <= 1.0);  // float32 rounding at .5
    const torch::Tensor flat = applyShift(images, {ShiftKind::Contrast, 1}, 0);
    QVERIFY(torch::equal(flat[0], torch::full_like(flat[0], flat[0][0][0][0].item<int>())));
  }

  void noiseHasTheAskedSpreadAndRepeats() {
    const torch::Tensor grey = torch::full({64, 1, 16, 16}, 128, torch::kUInt8);
    const torch::Tensor noisy = applyShift(grey, {ShiftKind::Noise, 0.1}, 5);
    QVERIFY(torch::equal(noisy, applyShift(grey, {ShiftKind::Noise, 0.1}, 5)));
    QVERIFY(!torch::equal(noisy, applyShift(grey, {ShiftKind::Noise, 0.1}, 6)));
    const torch::Tensor difference = (noisy.to(torch::kFloat64) - 128.0) / 255.0;
    QVERIFY2(std::abs(difference.std().item<double>() - 0.1) < 0.005, qPrintable(QString::number(difference.std().item<double>())));
    QVERIFY(std::abs(difference.mean().item<double>()) < 0.005);
  }

  // The first four Fashion-MNIST test images under each kind, against the strips in
  // tests/golden/ (looked at: a boot turned 30 degrees, moved 3 pixels, in noise, faded).
  // A pixel may differ by one grey level where another LibTorch rounds a .5 otherwise.
  // ENSEMBLELAB_WRITE_GOLDEN=1 writes them anew.
  void eachKindMatchesItsGoldenImage_data() {
    QTest::addColumn<QString>("shift");
    for (const char* shift : {"rotate:30", "translate:3", "noise:0.2", "contrast:0.5"}) QTest::newRow(shift) << shift;
  }
  void eachKindMatchesItsGoldenImage() {
    QFETCH(QString, shift);
    static const Dataset test = loadDataset("fashion-mnist", 1, 4).test;
    const QImage shifted = strip(applyShift(test.images, parseShifts(shift.toStdString()).front(), 0));
    const QString golden = QString(ENSEMBLELAB_SOURCE_DIR "/tests/golden/shift-%1.png").arg(QString(shift).replace(':', '-'));
    if (qEnvironmentVariableIsSet("ENSEMBLELAB_WRITE_GOLDEN")) QVERIFY(shifted.save(golden));
    const QImage expected = QImage(golden).convertToFormat(QImage::Format_Grayscale8);
    QCOMPARE(expected.size(), shifted.size());
    int largest = 0;
    for (int y = 0; y < expected.height(); ++y) {
      for (int x = 0; x < expected.width(); ++x) largest = std::max(largest, std::abs(int(expected.scanLine(y)[x]) - int(shifted.constScanLine(y)[x])));
    }
    QVERIFY2(largest <= 1, qPrintable(QString("%1 differs from %2 by %3 grey levels").arg(shift, golden).arg(largest)));
    QVERIFY(shifted != strip(test.images));  // the shift did something
  }

  void parsesLevelsAndNamesEachMistake() {
    const auto shifts = parseShifts("rotate:0,15,30,45,60,90");
    QCOMPARE(int(shifts.size()), 6);
    QCOMPARE(shifts[4].level, 60.0);
    QVERIFY(shifts[0].kind == ShiftKind::Rotate);
    QVERIFY2(refusal("blur:1").contains("unknown shift kind \"blur\"; the kinds are rotate"), qPrintable(refusal("blur:1")));
    QVERIFY2(refusal("noise:-0.1").contains("must be a number of 0 or more"), qPrintable(refusal("noise:-0.1")));
    QVERIFY2(refusal("contrast:1.5").contains("from 0 (unchanged) to 1"), qPrintable(refusal("contrast:1.5")));
    QVERIFY2(refusal("rotate:10,x").contains("\"x\" of rotate is not a number"), qPrintable(refusal("rotate:10,x")));
    // As every flag's number: no hex float (stod had read 0x10 as 16), and a number too large
    // to hold is said to be one.
    QVERIFY2(refusal("rotate:0x10").contains("\"0x10\" of rotate is not a number"), qPrintable(refusal("rotate:0x10")));
    QVERIFY2(refusal("rotate:1e400").contains("\"1e400\" of rotate is out of range: a number is at most about 1.8e308"),
             qPrintable(refusal("rotate:1e400")));
    QVERIFY2(refusal("rotate").contains("KIND:LEVEL"), qPrintable(refusal("rotate")));
    QVERIFY2(refusal("rotate:").contains("KIND:LEVEL"), qPrintable(refusal("rotate:")));
  }
};

QTEST_APPLESS_MAIN(TestDatasetShift)
#include "TestDatasetShift.moc"
