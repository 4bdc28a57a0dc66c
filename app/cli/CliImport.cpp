// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliImport.h"

#include <cstdio>
#include <vector>

#include "core/common/Error.h"
#include "core/common/TextFormat.h"
#include "core/data/DatasetSource.h"
#include "core/runs/DatasetImport.h"

namespace ensemble::cli {
namespace {

/// --size ROWSxCOLUMNS: two whole numbers of 1 or more.
void parseImageSize(const std::string& text, int64_t& rows, int64_t& columns) {
  const std::size_t x = text.find_first_of("xX");
  const auto part = [&](const std::string& digits) -> int64_t {
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoll(digits);
  };
  if (x != std::string::npos) {
    rows = part(text.substr(0, x));
    columns = part(text.substr(x + 1));
  }
  if (rows < 1 || columns < 1) {
    throw ConfigError("--size expects ROWSxCOLUMNS, two whole numbers of 1 to 99999 (28x28), got '" + text + "'");
  }
}

/// The folder's shape, said once it is written.
void sayWritten(const std::string& folder, const DatasetImportResult& result) {
  const int64_t classes = datasetShape(folder).classes;
  std::printf("wrote %s: %lld training and %lld test images of %lldx%lld, %lld classes; train on it with "
              "--dataset %s\n",
              folder.c_str(), static_cast<long long>(result.trainImages), static_cast<long long>(result.testImages),
              static_cast<long long>(result.rows), static_cast<long long>(result.columns),
              static_cast<long long>(classes), shellWord(folder).c_str());
}

}  // namespace

int commandImport(const CliOptions& options) {
  const bool npz = options.has("npz");
  if (npz && (options.has("train") || options.has("test"))) {
    throw UsageError("import takes --npz ARCHIVE.npz, or --train and --test CSV files, not both (see import --help)");
  }
  const std::vector<const char*> needed = npz ? std::vector<const char*>{"to"} : std::vector<const char*>{"train", "test", "to"};
  for (const char* flag : needed) {
    if (!options.has(flag)) {
      throw UsageError(std::string("import needs --") + flag +
                       " (import --train TRAIN.csv --test TEST.csv --to FOLDER, or import --npz ARCHIVE.npz --to "
                       "FOLDER; see import --help)");
    }
  }
  int64_t rows = 0, columns = 0;
  if (options.has("size")) parseImageSize(options.value("size"), rows, columns);
  // The folder is loaded as training will load it: a label file of one class, or a stray
  // label, is refused now, and the files are taken back.
  const std::string folder = options.value("to");
  if (npz) {
    sayWritten(folder, importNpzDataset({options.value("npz"), folder, rows, columns}, checkDataset));
  } else {
    sayWritten(folder, importCsvDataset({options.value("train"), options.value("test"), folder, rows, columns}, checkDataset));
  }
  return 0;
}

}  // namespace ensemble::cli
