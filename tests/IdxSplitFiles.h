// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// MNIST-format files for the window's tests, which link no LibTorch test support (Qt-only):
// one split of a dataset folder, of any sample count, image size and class count; and the
// CSV files Kaggle's Fashion-MNIST comes as, which the window offers to import.
#include <QByteArray>
#include <QDataStream>
#include <QDir>
#include <QFile>
#include <QString>
#include <QVector>
#include <QtTest>

namespace idx_files {

/// One split: `samples` images of `height` x `width` pixels in a fixed non-constant pattern,
/// labelled firstLabel, firstLabel + 1, ..., firstLabel + classes - 1 in turn.
struct IdxSplit {
  int samples = 0;
  int height = 28;
  int width = 28;
  int classes = 10;
  int firstLabel = 0;  // EMNIST's letters: 1 (labels 1-26)
};

/// Writes `split` ("train" or "t10k") into the existing `folder` as raw IDX files.
inline void writeIdxSplit(const QString& folder, const QString& split, const IdxSplit& shape) {
  const auto write = [&](const QString& name, quint32 magic, const QVector<quint32>& dims, const QByteArray& payload) {
    QFile file(folder + "/" + split + name);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QDataStream out(&file);  // big-endian, as IDX is
    out << magic;
    for (const quint32 dim : dims) out << dim;
    out.writeRawData(payload.constData(), int(payload.size()));
  };
  QByteArray pixels(shape.samples * shape.height * shape.width, 0), labels(shape.samples, 0);
  for (int i = 0; i < pixels.size(); ++i) pixels[i] = char((i * 37 + (i / shape.width) * 11) % 256);
  for (int i = 0; i < shape.samples; ++i) labels[i] = char(shape.firstLabel + i % shape.classes);
  const QVector<quint32> imageDims{quint32(shape.samples), quint32(shape.height), quint32(shape.width)};
  write("-images-idx3-ubyte", 0x00000803, imageDims, pixels);
  write("-labels-idx1-ubyte", 0x00000801, {quint32(shape.samples)}, labels);
}

/// Kaggle's Fashion-MNIST as it downloads, CSV files of a label and its pixels a row under
/// its names, small: 12 training and 6 test images of 2x2 in 3 classes, written into `folder`.
inline void writeKaggleCsvFolder(const QString& folder) {
  QVERIFY(QDir().mkpath(folder));
  for (const auto& [name, count] : {std::pair{QString("fashion-mnist_train.csv"), 12}, std::pair{QString("fashion-mnist_test.csv"), 6}}) {
    QByteArray text = "label,pixel1,pixel2,pixel3,pixel4\n";
    for (int i = 0; i < count; ++i) text += QByteArray::number(i % 3) + ",0," + QByteArray::number(i) + ",9,255\n";
    QFile file(folder + "/" + name);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(text) == text.size());
  }
}

}  // namespace idx_files
