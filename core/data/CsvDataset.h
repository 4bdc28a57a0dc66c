// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Datasets as CSV files of a label and its pixels a row: Kaggle's Fashion-MNIST
// (fashion-mnist_train.csv: a header row label,pixel1,...,pixel784, then 60,000 rows) and
// the MNIST CSVs written without a header, read into the IDX files of an MNIST-format folder.
// The engine reads IDX files alone (one format for its loader, the window's header reads and
// the Python package); core/runs/DatasetImport.h writes these once. Torch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "core/data/ImportedDataset.h"

namespace ensemble {

struct CsvImportOptions {
  std::string trainCsv;
  std::string testCsv;
  /// Where the four IDX files go (core/runs/DatasetImport.h): made where missing; refused
  /// where it holds any of them.
  std::string folder;
  /// The images' size; 0 x 0: square, from the pixels a row (784: 28 x 28).
  int64_t rows = 0;
  int64_t columns = 0;
};

/// Reads both CSV files whole and checks them. Throws DatasetError naming the file, line and
/// field of what is not a label and its pixels a row. (core/runs/DatasetImport.h writes them.)
ImportedDataset readCsvDataset(const CsvImportOptions& options);

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
