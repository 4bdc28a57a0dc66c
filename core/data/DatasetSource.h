// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Resolves a dataset name ("fashion-mnist", "synthetic" or a folder) to its two splits.
#include <cstdint>
#include <string>

#include "core/data/Dataset.h"

namespace ensemble {

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

/// `spec` as a run records it in config.json: a folder as an absolute path, so that the run
/// can be resumed and evaluated from any working directory; "fashion-mnist" and "synthetic" as
/// they are.
std::string recordedDatasetSpec(const std::string& spec);

/// The number of training samples of the dataset `spec` names, read from the training
/// images' IDX header alone (a few bytes, also of a .gz file), so a form can check a batch
/// size as the user types. Throws DatasetError as loadDataset does for a missing folder or
/// a folder without the four MNIST-format files, and for a file that is no IDX file.
int64_t trainingSampleCount(const std::string& spec);

/// The size of the test images of the dataset `spec` names, from their IDX header alone,
/// so a window can refuse a folder of another image size as it is opened. Throws
/// DatasetError as trainingSampleCount does.
ImageSize testImageSize(const std::string& spec);

}  // namespace ensemble
