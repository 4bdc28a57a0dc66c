// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An MNIST-format folder written from the files other tools save datasets as: CSV files
// (core/data/CsvDataset.h) or a NumPy .npz archive (core/data/NpzDataset.h). What the CLI's
// `import` and the window's offer to import do. Torch-free.
#include <cstdint>
#include <functional>
#include <string>

#include "core/data/CsvDataset.h"
#include "core/data/NpzDataset.h"

namespace ensemble {

struct DatasetImportResult {
  int64_t trainImages = 0;
  int64_t testImages = 0;
  int64_t rows = 0;
  int64_t columns = 0;
};

/// Refuses a folder that holds IDX files before anything is read, reads and checks both
/// CSV files (readCsvDataset), writes the four IDX files (each atomically), then calls
/// `check` on the folder: the loader's own checks (checkDataset: classes, labels), which
/// throw. Where a file cannot be written or `check` throws, the files written are removed,
/// and the folder where the import made it: nothing is left half done. Throws DatasetError
/// for what is wrong in a CSV, and IoError where the folder cannot be written.
DatasetImportResult importCsvDataset(const CsvImportOptions& options,
                                     const std::function<void(const std::string& folder)>& check = {});

/// As importCsvDataset, from the arrays of a .npz archive (readNpzDataset).
DatasetImportResult importNpzDataset(const NpzImportOptions& options,
                                     const std::function<void(const std::string& folder)>& check = {});

}  // namespace ensemble
