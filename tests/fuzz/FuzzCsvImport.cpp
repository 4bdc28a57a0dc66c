// SPDX-License-Identifier: GPL-3.0-or-later
// `import` on any bytes as both CSV files (the real path: files read, IDX files written). An
// import that succeeds must leave four IDX files that read back with the counts it reports;
// one that fails, none.
#include <cstdint>
#include <filesystem>

#include "core/io/RemoveTree.h"
#include "core/runs/DatasetImport.h"
#include "core/data/IdxFile.h"
#include "tests/fuzz/FuzzContract.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string csv = fuzzing::scratchPath("input.csv");
  static const std::string folder = fuzzing::scratchPath("imported");
  fuzzing::writeScratch(csv, data, size);
  std::error_code ec;
  ensemble::removeTree(folder, ec);
  ensemble::CsvImportOptions options;
  options.trainCsv = options.testCsv = csv;
  options.folder = folder;
  bool imported = false;
  ensemble::DatasetImportResult result;
  fuzzing::expectParsedOrRejected([&] {
    result = ensemble::importCsvDataset(options);
    imported = true;
  });
  if (imported) {
    fuzzing::expectParsedOrRejected([&] {
      const ensemble::IdxArray images = ensemble::readIdxFile(folder + "/train-images-idx3-ubyte");
      const ensemble::IdxArray labels = ensemble::readIdxFile(folder + "/t10k-labels-idx1-ubyte");
      fuzzing::require(images.dims.size() == 3 && std::int64_t(images.dims[0]) == result.trainImages &&
                           std::int64_t(images.dims[1]) == result.rows && std::int64_t(images.dims[2]) == result.columns,
                       "the imported images' dimensions differ from what the import reported");
      fuzzing::require(std::int64_t(labels.count()) == result.testImages, "the imported labels' count differs");
    });
  } else {
    fuzzing::require(!std::filesystem::exists(folder + "/train-images-idx3-ubyte", ec),
                     "a failed import left an IDX file behind");
  }
  return 0;
}
