// SPDX-License-Identifier: GPL-3.0-or-later
// The .npz import's reading on any bytes as an archive (ZIP directory, deflate, .npy headers,
// element conversion), in memory. An archive that imports must make four IDX files that
// parse back with the counts and size it reports, each image's pixels present.
#include <cstdint>
#include <vector>

#include "core/data/IdxFile.h"
#include "core/data/NpzDataset.h"
#include "tests/fuzz/FuzzContract.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::uint8_t> bytes(data, data + size);
  fuzzing::expectParsedOrRejected([&] {
    const ensemble::ImportedDataset dataset = ensemble::npzDatasetOf(bytes, "fuzz.npz");
    const auto parsed = [&](std::size_t file) {
      const std::string& contents = dataset.contents[file];
      return ensemble::parseIdx(reinterpret_cast<const std::uint8_t*>(contents.data()), contents.size(), "imported");
    };
    const ensemble::IdxArray trainImages = parsed(0), trainLabels = parsed(1), testImages = parsed(2),
                             testLabels = parsed(3);
    fuzzing::require(trainImages.dims.size() == 3 && std::int64_t(trainImages.dims[0]) == dataset.trainImages &&
                         std::int64_t(trainImages.dims[1]) == dataset.rows &&
                         std::int64_t(trainImages.dims[2]) == dataset.columns,
                     "the imported training images' dimensions differ from what the import reported");
    fuzzing::require(testImages.dims.size() == 3 && std::int64_t(testImages.dims[0]) == dataset.testImages &&
                         testImages.dims[1] == trainImages.dims[1] && testImages.dims[2] == trainImages.dims[2],
                     "the imported test images differ from the training images in size, or from the reported count");
    fuzzing::require(std::int64_t(trainLabels.count()) == dataset.trainImages &&
                         std::int64_t(testLabels.count()) == dataset.testImages && dataset.trainImages > 0,
                     "the imported labels' counts differ from the images'");
  });
  return 0;
}
