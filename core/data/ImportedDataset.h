// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A dataset read from a format other people's tools write (CSV files: core/data/CsvDataset.h;
// NumPy's .npz: core/data/NpzDataset.h) as the four IDX files the engine reads, which
// core/runs/DatasetImport.h writes once. Torch-free.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// The contents of the four IDX files (kMnistFileNames' order), and the images' count and size.
struct ImportedDataset {
  std::array<std::string, 4> contents;
  int64_t trainImages = 0;
  int64_t testImages = 0;
  int64_t rows = 0;
  int64_t columns = 0;
};

/// One split as read: a label a byte, and the images' pixels a byte, image after image.
struct ImportedSplit {
  std::string origin;  // the file (or array) it came from, for messages
  std::vector<std::uint8_t> labels;
  std::vector<std::uint8_t> pixels;
};

/// The IDX files of two splits of images of rows x columns, whose pixels are their labels'
/// count x rows x columns. Throws DatasetError where a split holds more images than an IDX
/// dimension can count (2^32 - 1).
ImportedDataset idxFilesOf(const ImportedSplit& train, const ImportedSplit& test, int64_t rows, int64_t columns);

/// `text` in lower case (ASCII): file names compared as people type them.
std::string lowerCase(std::string text);

/// The names of the files in `folder` whose names end in `suffix` (".csv", ".npz"; in any
/// case), sorted: what a folder holds to import.
std::vector<std::string> fileNamesEndingIn(const std::string& folder, const std::string& suffix);

}  // namespace ensemble
