// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/ImportedDataset.h"

#include "core/common/Error.h"
#include "core/data/IdxFile.h"

namespace ensemble {

ImportedDataset idxFilesOf(const ImportedSplit& train, const ImportedSplit& test, int64_t rows, int64_t columns) {
  constexpr std::uint64_t kMaxDimension = 0xFFFFFFFFu;  // an IDX dimension is 32 bits
  for (const ImportedSplit* split : {&train, &test}) {
    if (split->labels.size() > kMaxDimension) throw DatasetError(split->origin + " holds more images than an IDX file can");
  }
  ImportedDataset files;
  files.contents = {idxFileBytes({int64_t(train.labels.size()), rows, columns}, train.pixels),
                    idxFileBytes({int64_t(train.labels.size())}, train.labels),
                    idxFileBytes({int64_t(test.labels.size()), rows, columns}, test.pixels),
                    idxFileBytes({int64_t(test.labels.size())}, test.labels)};
  files.trainImages = int64_t(train.labels.size());
  files.testImages = int64_t(test.labels.size());
  files.rows = rows;
  files.columns = columns;
  return files;
}

}  // namespace ensemble
