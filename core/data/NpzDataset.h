// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Datasets saved from NumPy: a .npz archive of four arrays, as Keras's mnist.npz holds them
// (x_train, y_train, x_test, y_test; keras.datasets.mnist.load_data() downloads it to
// ~/.keras/datasets/) or as numpy.savez / numpy.savez_compressed write them, read into the
// IDX files of an MNIST-format folder (core/runs/DatasetImport.h writes them). Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/ImportedDataset.h"

namespace ensemble {

struct NpzImportOptions {
  std::string npz;
  /// Where the four IDX files go (core/runs/DatasetImport.h).
  std::string folder;
  /// The size of images saved flattened (N x 784); 0 x 0: square, from the pixels an image.
  int64_t rows = 0;
  int64_t columns = 0;
};

/// The names of the four arrays, in kMnistFileNames' order (each split's images, then its
/// labels), as the tools that save datasets name them: Keras's first.
inline constexpr const char* kNpzArrayNames[][4] = {{"x_train", "y_train", "x_test", "y_test"},
                                                    {"train_images", "train_labels", "test_images", "test_labels"},
                                                    {"train_x", "train_y", "test_x", "test_y"}};

/// Reads the archive whole and checks it: the four arrays under one of kNpzArrayNames' sets
/// of names (any case), images of N x H x W (or N x H x W x 1, N x 1 x H x W, or N x H*W with
/// the size given or square), labels of N (or N x 1), every element a whole number 0-255
/// (of any integer or floating-point type, in C or Fortran order). Throws DatasetError naming
/// the archive, the array and the element of what is not so, and what to do.
ImportedDataset readNpzDataset(const NpzImportOptions& options);

/// readNpzDataset on an archive's bytes already in memory; `origin` names it in messages.
ImportedDataset npzDatasetOf(const std::vector<std::uint8_t>& bytes, const std::string& origin, int64_t rows = 0,
                             int64_t columns = 0);

/// The .npz files of a folder, their names sorted.
std::vector<std::string> npzFilesIn(const std::string& folder);

/// Where an archive is imported by default: beside it, its name without .npz + "-idx"
/// (~/.keras/datasets/mnist.npz: ~/.keras/datasets/mnist-idx).
std::string importFolderForNpz(const std::string& npz);

/// For a dataset named by `path` that is a .npz file, or a folder without IDX files that holds
/// some: a sentence naming them and the command that imports one; for a folder of .npy files
/// (numpy.save, one array a file), how to make them one archive; empty otherwise.
std::string npzImportHint(const std::string& path);

}  // namespace ensemble
