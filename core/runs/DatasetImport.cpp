// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/DatasetImport.h"

#include <filesystem>
#include <vector>

#include "core/common/Error.h"
#include "core/data/IdxFile.h"
#include "core/io/AtomicFile.h"

namespace ensemble {

CsvImportResult importCsvDataset(const CsvImportOptions& options, const std::function<void(const std::string&)>& check) {
  namespace fs = std::filesystem;
  const fs::path folder(options.folder);
  std::error_code ec;
  for (const char* name : kMnistFileNames) {  // before the CSVs are read: they may take seconds
    for (const std::string file : {std::string(name), std::string(name) + ".gz"}) {
      if (fs::exists(folder / file, ec)) {
        throw DatasetError(options.folder + " already holds " + file + "; import into a new or empty folder (nothing " +
                           "was written)");
      }
    }
  }
  const CsvDatasetFiles files = readCsvDataset(options);
  const bool made = !fs::exists(folder, ec);
  fs::create_directories(folder, ec);
  if (ec) throw IoError(describeIoFailure("cannot create", options.folder, ec.value()));
  std::vector<fs::path> written;
  try {
    for (std::size_t i = 0; i < kMnistFileNames.size(); ++i) {
      writeFileAtomically((folder / kMnistFileNames[i]).string(), files.contents[i]);
      written.push_back(folder / kMnistFileNames[i]);
    }
    if (check) check(options.folder);
  } catch (...) {
    for (const fs::path& file : written) fs::remove(file, ec);  // nothing left half done,
    if (made) fs::remove(folder, ec);                            // nor a folder made for it
    throw;
  }
  return {files.trainImages, files.testImages, files.rows, files.columns};
}

}  // namespace ensemble
