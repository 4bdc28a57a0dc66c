// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/DatasetImport.h"

#include <filesystem>
#include <vector>

#include "core/common/Error.h"
#include "core/data/IdxFile.h"
#include "core/io/AtomicFile.h"

namespace ensemble {
namespace {

namespace fs = std::filesystem;

/// Writes what `read` reads into `target`, as importCsvDataset says.
DatasetImportResult importInto(const std::string& target, const std::function<ImportedDataset()>& read,
                               const std::function<void(const std::string&)>& check) {
  const fs::path folder(target);
  std::error_code ec;
  for (const char* name : kMnistFileNames) {  // before the files are read: they may take seconds
    for (const std::string file : {std::string(name), std::string(name) + ".gz"}) {
      if (fs::exists(folder / file, ec)) {
        throw DatasetError(target + " already holds " + file + "; import into a new or empty folder (nothing " +
                           "was written)");
      }
    }
  }
  const ImportedDataset files = read();
  const bool made = !fs::exists(folder, ec);
  fs::create_directories(folder, ec);
  if (ec) throw IoError(describeIoFailure("cannot create", target, ec.value()));
  std::vector<fs::path> written;
  try {
    for (std::size_t i = 0; i < kMnistFileNames.size(); ++i) {
      writeFileAtomically((folder / kMnistFileNames[i]).string(), files.contents[i]);
      written.push_back(folder / kMnistFileNames[i]);
    }
    if (check) check(target);
  } catch (...) {
    for (const fs::path& file : written) fs::remove(file, ec);  // nothing left half done,
    if (made) fs::remove(folder, ec);                            // nor a folder made for it
    throw;
  }
  return {files.trainImages, files.testImages, files.rows, files.columns};
}

}  // namespace

DatasetImportResult importCsvDataset(const CsvImportOptions& options, const std::function<void(const std::string&)>& check) {
  return importInto(options.folder, [&] { return readCsvDataset(options); }, check);
}

DatasetImportResult importNpzDataset(const NpzImportOptions& options, const std::function<void(const std::string&)>& check) {
  return importInto(options.folder, [&] { return readNpzDataset(options); }, check);
}

}  // namespace ensemble
