// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/DatasetSource.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <zlib.h>

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

/// The classes of a folder's two splits: the largest label + 1 over both (either may lack a
/// class). Labels far apart with most numbers between them unused are a corrupt byte more
/// likely than a dataset, and are refused; EMNIST's letters leave one number (0) unused.
void agreeOnClasses(DatasetPair& pair, const std::string& folder) {
  const Dataset& widest = pair.train.classes >= pair.test.classes ? pair.train : pair.test;
  const int64_t classes = widest.classes;
  std::vector<bool> occurs(std::size_t(classes), false);
  int64_t largestAt = -1;
  for (const Dataset* split : {&pair.train, &pair.test}) {
    const int64_t* labels = split->labels.data_ptr<int64_t>();
    for (int64_t i = 0; i < split->size(); ++i) {
      occurs[std::size_t(labels[i])] = true;
      if (split == &widest && largestAt < 0 && labels[i] == classes - 1) largestAt = i;
    }
  }
  if (classes < 2) {
    throw DatasetError("dataset folder " + folder + " has one class: every label in " + pair.train.labelsOrigin +
                       " and " + pair.test.labelsOrigin + " is 0, and a classifier needs two or more");
  }
  const int64_t occurring = int64_t(std::count(occurs.begin(), occurs.end(), true));
  if (2 * occurring < classes) {
    throw DatasetError(widest.labelsOrigin + " has the label " + std::to_string(classes - 1) + " (at index " +
                       std::to_string(largestAt) + "), so classes 0-" + std::to_string(classes - 1) +
                       ", but only " + std::to_string(occurring) + " of those " + std::to_string(classes) +
                       " numbers occur as labels in the two splits; the file is corrupt, or the dataset's classes "
                       "need numbers 0 to N-1 with few gaps");
  }
  pair.train.classes = pair.test.classes = classes;
}

/// Both splits of `folder` hold images of one size: a model takes one.
void checkOneImageSize(const std::string& folder, ImageSize train, ImageSize test) {
  if (train.height == test.height && train.width == test.width) return;
  throw DatasetError("dataset folder " + folder + " mixes image sizes: train images are " +
                     std::to_string(train.height) + "x" + std::to_string(train.width) + ", test images " +
                     std::to_string(test.height) + "x" + std::to_string(test.width));
}

/// `folder` exists (datasetFolderOf).
DatasetPair loadFolder(const std::string& folder, const std::string& name) {
  DatasetPair pair;
  pair.name = name;
  pair.train = loadSplit(folder, kFileNames[0], kFileNames[1]);
  pair.test = loadSplit(folder, kFileNames[2], kFileNames[3]);
  checkOneImageSize(folder, {pair.train.height(), pair.train.width()}, {pair.test.height(), pair.test.width()});
  agreeOnClasses(pair, folder);
  return pair;
}

std::string datasetFolderOf(const std::string& spec) {
  const std::string folder = spec == "fashion-mnist" ? defaultFashionMnistFolder() : spec;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw DatasetError(spec == "fashion-mnist"
                           ? "Fashion-MNIST is not installed at " + folder +
                                 "; install it with `apt install dataset-fashion-mnist`, or pass " +
                                 mention::field("dataset") + " DIR for a folder of MNIST-format files"
                           : "dataset folder " + folder + (fs::exists(folder, ec) ? " is a file, not a folder" : " does not exist") +
                                 "; pass " + mention::field("dataset") +
                                 " fashion-mnist, synthetic, or a folder holding the four MNIST-format files",
                       "dataset");
  }
  return folder;
}

/// The dimensions of the IDX file at `path` (raw or gzip), from its header alone.
std::vector<int64_t> idxDimensions(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");  // reads an uncompressed file as it is
  unsigned char header[4 + 4 * 4] = {};
  const int read = file ? gzread(file, header, sizeof header) : -1;
  if (file) gzclose(file);
  const int dims = read >= 4 ? header[3] : 0;
  if (read < 4 || header[0] != 0 || header[1] != 0 || dims < 1 || dims > 4 || read < 4 + 4 * dims) {
    throw DatasetError(path + " is not an IDX file (its header is " + (read < 0 ? "unreadable" : "not 0 0 type dims") +
                       "); an MNIST-format folder holds the four IDX files of MNIST, raw or .gz");
  }
  std::vector<int64_t> dimensions;
  for (int d = 0; d < dims; ++d) {
    const unsigned char* size = header + 4 + 4 * d;
    dimensions.push_back((int64_t(size[0]) << 24) | (int64_t(size[1]) << 16) | (int64_t(size[2]) << 8) | int64_t(size[3]));
  }
  return dimensions;
}

/// The dimensions of the images' IDX file at `path`: (count, height, width).
std::vector<int64_t> imageDimensions(const std::string& path) {
  std::vector<int64_t> dims = idxDimensions(path);
  if (dims.size() != 3) {
    throw DatasetError(path + " holds " + std::to_string(dims.size()) +
                       "-dimensional data; images are 3-dimensional (count, height, width)");
  }
  return dims;
}

/// The folder `spec` names, checked to hold all four files, as loading needs them.
fs::path checkedFolderOf(const std::string& spec) {
  const fs::path folder = datasetFolderOf(spec);
  for (const char* name : kFileNames) findSplitFile(folder, name);
  return folder;
}

}  // namespace

int64_t trainingSampleCount(const std::string& spec) {
  if (spec == "synthetic") return SyntheticOptions{}.trainSize;
  return idxDimensions(findSplitFile(checkedFolderOf(spec), kFileNames[0])).front();
}

ImageSize testImageSize(const std::string& spec) {
  if (spec == "synthetic") return {SyntheticOptions{}.side, SyntheticOptions{}.side};
  const std::vector<int64_t> dims = imageDimensions(findSplitFile(checkedFolderOf(spec), kFileNames[2]));
  return {dims[1], dims[2]};
}

DatasetShape datasetShape(const std::string& spec) {
  if (spec == "synthetic") {
    const SyntheticOptions synthetic;
    return {synthetic.trainSize, synthetic.testSize, {synthetic.side, synthetic.side}, kSyntheticClasses};
  }
  const fs::path folder = checkedFolderOf(spec);
  const std::vector<int64_t> train = imageDimensions(findSplitFile(folder, kFileNames[0]));
  const std::vector<int64_t> test = imageDimensions(findSplitFile(folder, kFileNames[2]));
  checkOneImageSize(folder.string(), {train[1], train[2]}, {test[1], test[2]});
  int64_t classes = 0;
  for (const char* labelsName : {kFileNames[1], kFileNames[3]}) {
    classes = std::max(classes, classesOfLabels(readIdxFile(findSplitFile(folder, labelsName))));
  }
  return {train[0], test[0], {train[1], train[2]}, classes};
}

std::string defaultFashionMnistFolder() { return ENSEMBLELAB_DEFAULT_FASHION_MNIST; }

std::string recordedDatasetSpec(const std::string& spec) {
  if (spec == "synthetic" || spec == "fashion-mnist") return spec;
  std::error_code ec;
  // Not normalised: "links/../data" is not "data" where links is a symbolic link.
  const fs::path absolute = fs::absolute(spec, ec);
  return ec ? spec : absolute.string();
}

DatasetPair loadDataset(const std::string& spec, int64_t trainLimit, int64_t testLimit) {
  DatasetPair pair;
  if (spec == "synthetic") {
    pair = makeSyntheticDataset();
  } else if (spec == "fashion-mnist") {
    pair = loadFolder(datasetFolderOf(spec), "fashion-mnist");
  } else {
    fs::path folder(spec);
    if (folder.filename().empty()) folder = folder.parent_path();  // "dir/" names "dir"
    pair = loadFolder(datasetFolderOf(spec), folder.filename().string());
  }
  pair.train = pair.train.firstSamples(trainLimit);
  pair.test = pair.test.firstSamples(testLimit);
  return pair;
}

}  // namespace ensemble
