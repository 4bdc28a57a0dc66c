// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/ImportedDataset.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

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

std::string lowerCase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

std::vector<std::string> fileNamesEndingIn(const std::string& folder, const std::string& suffix) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string(), lower = lowerCase(name);
    if (lower.size() > suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        it->is_regular_file(ec)) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace ensemble
