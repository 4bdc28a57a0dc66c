// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/DatasetSource.h"

#include <filesystem>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/data/IdxFile.h"
#include "core/data/SyntheticDataset.h"

namespace ensemble {
namespace fs = std::filesystem;
namespace {

constexpr const char* kFileNames[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                      "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

/// The file `name` or `name.gz` in `folder`; raw wins when both exist.
std::string findSplitFile(const fs::path& folder, const std::string& name) {
  for (const std::string candidate : {name, name + ".gz"}) {
    std::error_code ec;
    if (fs::is_regular_file(folder / candidate, ec)) return (folder / candidate).string();
  }
  throw DatasetError("dataset folder " + folder.string() + " has no " + name + " (or " + name +
                     ".gz); an MNIST-format folder holds " + kFileNames[0] + ", " +
                     kFileNames[1] + ", " + kFileNames[2] + " and " + kFileNames[3]);
}

Dataset loadSplit(const fs::path& folder, const char* imagesName, const char* labelsName) {
  const std::string imagesPath = findSplitFile(folder, imagesName);
  const std::string labelsPath = findSplitFile(folder, labelsName);
  return datasetFromIdx(readIdxFile(imagesPath), readIdxFile(labelsPath), imagesPath,
                        labelsPath);
}

DatasetPair loadFolder(const std::string& folder, const std::string& name) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw DatasetError("dataset folder " + folder +
                       " does not exist; pass " + mention::field("dataset") +
                       " fashion-mnist, synthetic, or a folder holding the four MNIST-format files", "dataset");
  }
  DatasetPair pair;
  pair.name = name;
  pair.train = loadSplit(folder, kFileNames[0], kFileNames[1]);
  pair.test = loadSplit(folder, kFileNames[2], kFileNames[3]);
  if (pair.train.height() != pair.test.height() || pair.train.width() != pair.test.width()) {
    throw DatasetError("dataset folder " + folder + " mixes image sizes: train images are " +
                       std::to_string(pair.train.height()) + "x" +
                       std::to_string(pair.train.width()) + ", test images " +
                       std::to_string(pair.test.height()) + "x" +
                       std::to_string(pair.test.width()));
  }
  return pair;
}

}  // namespace

std::string defaultFashionMnistFolder() { return ENSEMBLELAB_DEFAULT_FASHION_MNIST; }

DatasetPair loadDataset(const std::string& spec, int64_t trainLimit, int64_t testLimit) {
  DatasetPair pair;
  if (spec == "synthetic") {
    pair = makeSyntheticDataset();
  } else if (spec == "fashion-mnist") {
    const std::string folder = defaultFashionMnistFolder();
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
      throw DatasetError("Fashion-MNIST is not installed at " + folder +
                         "; install it with `apt install dataset-fashion-mnist`, or pass " + mention::field("dataset") +
                         " DIR for a folder of MNIST-format files", "dataset");
    }
    pair = loadFolder(folder, "fashion-mnist");
  } else {
    fs::path folder(spec);
    if (folder.filename().empty()) folder = folder.parent_path();  // "dir/" names "dir"
    pair = loadFolder(spec, folder.filename().string());
  }
  pair.train = pair.train.firstSamples(trainLimit);
  pair.test = pair.test.firstSamples(testLimit);
  return pair;
}

}  // namespace ensemble
