// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/TestSupport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include "core/data/SyntheticDataset.h"
#include "core/io/TensorBoardEvents.h"
#include "core/config/ExperimentConfig.h"
#include "tests/CheckpointWeights.h"
#include "tests/Deflate.h"

namespace testing {

std::shared_ptr<const ensemble::DatasetPair> syntheticData() {
  static const auto data = std::make_shared<const ensemble::DatasetPair>(ensemble::makeSyntheticDataset());
  return data;
}

ensemble::ExperimentConfig smallConfig(const std::string& mode, const std::string& devices) {
  ensemble::ExperimentConfig config;
  config.dataset = "synthetic";
  config.mode = ensemble::parseMode(mode);
  config.devices = devices;
  config.batchSize = 64;
  config.epochs = 1;
  config.logEvery = 2;
  // The Flax recipe's 0.1 (with momentum 0.9) sits at the edge of stability on this small
  // dataset: a loss spike sent an ensemble back to chance on one CPU and not on another
  // (the convolution kernels differ by instruction set). At 0.05 every seed 0-4 reaches
  // 100% test accuracy in 4 epochs, so what the tests see is the trainer, not chaos.
  config.learningRate = 0.05;
  return config;
}

bool sameLatestWeights(const std::string& runDirectoryA, const std::string& runDirectoryB) {
  return identical(latestWeights(runDirectoryA), latestWeights(runDirectoryB));
}

std::size_t modelsInLatestCheckpoint(const std::string& runDirectory) { return latestWeights(runDirectory).size(); }

QByteArray idxBytes(const std::vector<std::uint32_t>& dims, const QByteArray& payload,
                    std::uint8_t type) {
  QByteArray bytes;
  bytes.append(char(0)).append(char(0)).append(char(type)).append(char(dims.size()));
  for (const std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.append(char((d >> shift) & 0xFF));
  }
  return bytes + payload;
}

QByteArray gzipped(const QByteArray& raw) { return test_files::deflated(raw, test_files::Framing::Gzip); }

QByteArray pattern(int size) {
  QByteArray bytes(size, 0);
  for (int i = 0; i < size; ++i) bytes[i] = char((i * 37 + 11) % 256);
  return bytes;
}

bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

void writeMnistFolder(const QString& dir, int train, int test, int rows, int cols, bool gz, int classes) {
  const auto put = [&](const QString& name, const QByteArray& raw) {
    writeFile(dir + "/" + name + (gz ? ".gz" : ""), gz ? gzipped(raw) : raw);
  };
  QByteArray trainLabels(train, 0), testLabels(test, 0);
  for (int i = 0; i < train; ++i) trainLabels[i] = char(i % classes);
  for (int i = 0; i < test; ++i) testLabels[i] = char((i * 3) % classes);
  const auto u = [](int v) { return std::uint32_t(v); };
  put("train-images-idx3-ubyte", idxBytes({u(train), u(rows), u(cols)}, pattern(train * rows * cols)));
  put("train-labels-idx1-ubyte", idxBytes({u(train)}, trainLabels));
  put("t10k-images-idx3-ubyte", idxBytes({u(test), u(rows), u(cols)}, pattern(test * rows * cols)));
  put("t10k-labels-idx1-ubyte", idxBytes({u(test)}, testLabels));
}

bool writeNamedMnistSet(const QString& dir, const QString& prefix, const QString& separator, int train, int test,
                        int rows, int cols, bool gz, int classes) {
  QTemporaryDir scratch;
  writeMnistFolder(scratch.path(), train, test, rows, cols, gz, classes);
  const QStringList names = QDir(scratch.path()).entryList(QDir::Files);
  for (const QString& name : names) {
    QString renamed = prefix + name;
    renamed.replace("-idx", separator + "idx");
    if (!QFile::copy(scratch.filePath(name), QDir(dir).filePath(renamed))) return false;
  }
  return names.size() == 4;
}

QStringList readLines(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
}

QByteArray fileBytes(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList tensorBoardPoints(const QString& logFolder) {
  QStringList points;
  const QDir log(logFolder);
  for (const QString& model : log.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    for (const QString& name : QDir(log.filePath(model)).entryList({"*tfevents*"}, QDir::Files, QDir::Name)) {
      QFile file(log.filePath(model + "/" + name));
      if (!file.open(QIODevice::ReadOnly)) continue;
      for (const ensemble::ScalarEvent& point : ensemble::readScalarRecords(file.readAll().toStdString())) {
        points << QString("%1 %2 %3 %4").arg(model, QString::fromStdString(point.tag)).arg(point.step).arg(point.value, 0, 'g', 9);
      }
    }
  }
  return points;
}

namespace {

/// Binds `port` (0: any) on every interface; returns the bound port, or 0 when taken.
int bindPort(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = htons(std::uint16_t(port));
  int bound = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    bound = ntohs(address.sin_port);
  }
  ::close(fd);
  return bound;
}

}  // namespace

int freePort(int count) {
  for (;;) {
    const int first = bindPort(0);
    bool all = first > 0 && first + count - 1 <= 65535;
    for (int next = first + 1; all && next < first + count; ++next) all = bindPort(next) == next;
    if (all) return first;
  }
}

}  // namespace testing
