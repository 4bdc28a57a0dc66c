// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Resolves a dataset name ("fashion-mnist", "synthetic" or a folder) to its two splits.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

// Kept to a declaration: the window and the CLI ask for a dataset's shape without LibTorch's
// headers, which core/data/Dataset.h brings (a caller of loadDataset includes it).
struct DatasetPair;

/// An image's size in pixels.
struct ImageSize {
  int64_t height = 0;
  int64_t width = 0;
};

/// The folder behind the name "fashion-mnist" (Debian's dataset-fashion-mnist package).
std::string defaultFashionMnistFolder();

/// Loads `spec`: "fashion-mnist", "synthetic", or a folder with the four MNIST-format
/// files (each raw or .gz). Keeps the first `trainLimit` / `testLimit` samples when > 0.
/// Throws DatasetError naming the folder or file when anything is missing or malformed.
DatasetPair loadDataset(const std::string& spec, int64_t trainLimit = 0, int64_t testLimit = 0);

/// Loads `spec` as loadDataset does, keeping nothing: every check loading makes (classes,
/// labels, sizes), for a caller that wants no tensors (an import, before it says done).
/// Throws DatasetError as loadDataset does.
void checkDataset(const std::string& spec);

/// The test split alone of `spec`, as an evaluation on another dataset reads it (eval and
/// predict --dataset, an out-of-distribution set): a folder needs only its two test files
/// (t10k-*), and its labels are checked against the run's classes, not for a training set
/// (one class, or placeholder labels of unlabelled images, are fine). Keeps the first
/// `testLimit` samples when > 0. Throws DatasetError as loadDataset does.
struct Dataset;
Dataset loadTestSplit(const std::string& spec, int64_t testLimit = 0);

/// `spec` as a run records it in config.json: a folder as an absolute path, so that the run
/// can be resumed and evaluated from any working directory; "fashion-mnist" and "synthetic" as
/// they are.
std::string recordedDatasetSpec(const std::string& spec);

/// A subfolder of `folder` that holds one whole dataset, as torchvision's MNIST/raw does (the
/// first by name; one level down, else two, as below torchvision's root: ROOT/MNIST/raw), or
/// "": a user who names the dataset's top folder is told which to name.
std::string subfolderWithADataset(const std::string& folder);

/// The number of training samples of the dataset `spec` names, read from the training
/// images' IDX header alone (a few bytes, also of a .gz file), so a form can check a batch
/// size as the user types. Throws DatasetError as loadDataset does for a missing folder or
/// a folder without the four MNIST-format files, and for a file that is no IDX file.
int64_t trainingSampleCount(const std::string& spec);

/// The size of the test images of the dataset `spec` names, from their IDX header alone,
/// so a window can refuse a folder of another image size as it is opened (a folder of test
/// files alone will do, as loadTestSplit reads it). Throws DatasetError as
/// trainingSampleCount does.
ImageSize testImageSize(const std::string& spec);

/// What the dataset `spec` names holds, as a form shows it when the dataset is picked: both
/// splits' sample counts and their image size from the IDX headers, and the classes from the
/// two label files (classesOfLabels over both, as loading counts them; a label is one byte an
/// image). Loading checks more (every label against its image, gaps between classes). Throws
/// DatasetError as trainingSampleCount does, and where the two splits' images differ in size.
struct DatasetShape {
  int64_t trainSamples = 0;
  int64_t testSamples = 0;
  ImageSize imageSize;
  int64_t classes = 0;
  /// The labels an image of either split has, ascending: 0 to classes - 1 as a rule, 1-26 for
  /// EMNIST's letters (whose 27 classes are labels 0-26, 0 unused).
  std::vector<int64_t> labels;
};
DatasetShape datasetShape(const std::string& spec);

}  // namespace ensemble
