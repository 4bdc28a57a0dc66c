// SPDX-License-Identifier: GPL-3.0-or-later
// The IDX reader on any bytes, raw or gzip (the real file path: readIdxFile detects gzip
// by content). A parsed array must hold exactly the bytes its dimensions declare.
#include <cstdint>

#include "core/data/IdxFile.h"
#include "tests/fuzz/FuzzContract.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = fuzzing::scratchPath("input.idx");
  fuzzing::writeScratch(path, data, size);
  fuzzing::expectParsedOrRejected([&] {
    const ensemble::IdxArray array = ensemble::readIdxFile(path);
    std::uint64_t expected = 1;
    for (const std::uint32_t dim : array.dims) expected *= dim;
    fuzzing::require(!array.dims.empty() && array.data.size() == expected,
                     "parsed IDX holds a different byte count than its dimensions declare");
  });
  fuzzing::expectParsedOrRejected([&] { ensemble::parseIdx(data, size, "fuzz input"); });
  return 0;
}
