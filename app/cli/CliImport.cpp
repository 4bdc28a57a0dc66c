// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliImport.h"

#include <cstdio>

#include "core/common/Error.h"
#include "core/common/TextFormat.h"
#include "core/data/DatasetSource.h"
#include "core/runs/DatasetImport.h"

namespace ensemble::cli {
namespace {

/// --size ROWSxCOLUMNS: two whole numbers of 1 or more.
void parseImageSize(const std::string& text, CsvImportOptions& options) {
  const std::size_t x = text.find_first_of("xX");
  const auto part = [&](const std::string& digits) -> int64_t {
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoll(digits);
  };
  if (x != std::string::npos) {
    options.rows = part(text.substr(0, x));
    options.columns = part(text.substr(x + 1));
  }
  if (options.rows < 1 || options.columns < 1) {
    throw ConfigError("--size expects ROWSxCOLUMNS, two whole numbers of 1 to 99999 (28x28), got '" + text + "'");
  }
}

}  // namespace

int commandImport(const CliOptions& options) {
  for (const char* flag : {"train", "test", "to"}) {
    if (!options.has(flag)) {
      throw UsageError(std::string("import needs --") + flag +
                       " (import --train TRAIN.csv --test TEST.csv --to FOLDER; see import --help)");
    }
  }
  CsvImportOptions import;
  import.trainCsv = options.value("train");
  import.testCsv = options.value("test");
  import.folder = options.value("to");
  if (options.has("size")) parseImageSize(options.value("size"), import);
  // The folder is loaded as training will load it: a label file of one class, or a stray
  // label, is refused now, and the files are taken back.
  const CsvImportResult result = importCsvDataset(import, checkDataset);
  const int64_t classes = datasetShape(import.folder).classes;
  std::printf("wrote %s: %lld training and %lld test images of %lldx%lld, %lld classes; train on it with "
              "--dataset %s\n",
              import.folder.c_str(), static_cast<long long>(result.trainImages),
              static_cast<long long>(result.testImages), static_cast<long long>(result.rows),
              static_cast<long long>(result.columns), static_cast<long long>(classes), shellWord(import.folder).c_str());
  return 0;
}

}  // namespace ensemble::cli
