// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// MNIST-format folders from CSV files of a label and its pixels a row: Kaggle's Fashion-MNIST
// (fashion-mnist_train.csv: a header row label,pixel1,...,pixel784, then 60,000 rows) and
// the MNIST CSVs written without a header. The engine reads IDX files alone (one format for
// its loader, the window's header reads and the Python package); this writes them, once.
// Torch-free.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ensemble {

struct CsvImportOptions {
  std::string trainCsv;
  std::string testCsv;
  /// Where the four IDX files go: made where missing; refused where it holds any of them.
  std::string folder;
  /// The images' size; 0 x 0: square, from the pixels a row (784: 28 x 28).
  int64_t rows = 0;
  int64_t columns = 0;
};

struct CsvImportResult {
  int64_t trainImages = 0;
  int64_t testImages = 0;
  int64_t rows = 0;
  int64_t columns = 0;
};

/// Reads both CSV files whole, checks them, then writes the four IDX files (each atomically)
/// and calls `check` on the folder: the loader's own checks (classes, labels), which throw.
/// Where a file cannot be written or `check` throws, the files written are removed: nothing
/// is left half done. Throws DatasetError naming the file, line and field of what is wrong in
/// a CSV, and IoError where the folder cannot be written.
CsvImportResult importCsvDataset(const CsvImportOptions& options,
                                 const std::function<void(const std::string& folder)>& check = {});

/// The CSV files of a folder: every one's name, sorted, and the paths of the one train and
/// one test file their names tell apart ("train" in one, "test" in the other), or empty.
struct CsvFilesFound {
  std::vector<std::string> names;
  std::string train;
  std::string test;
};
CsvFilesFound csvFilesIn(const std::string& folder);

/// Where a folder's CSV files are imported by default: beside it, its name + "-idx".
std::string importFolderFor(const std::string& folder);

/// For a dataset folder without IDX files: where it holds CSV files, a sentence naming them
/// and the command that imports them (csvFilesIn's train and test, or placeholders); empty
/// where it holds none.
std::string csvImportHint(const std::string& folder);

}  // namespace ensemble
