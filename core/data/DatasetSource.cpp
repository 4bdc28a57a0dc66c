// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/DatasetSource.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <regex>
#include <vector>

#include <zlib.h>

#include "core/common/Error.h"
#include "core/common/FileKind.h"
#include "core/common/FieldMention.h"
#include "core/data/CsvDataset.h"
#include "core/data/IdxFile.h"
#include "core/data/NpzDataset.h"
#include "core/data/SyntheticDataset.h"

namespace ensemble {
namespace fs = std::filesystem;
namespace {

constexpr const auto& kFileNames = kMnistFileNames;
constexpr std::size_t kTrainImages = 0, kTrainLabels = 1, kTestImages = 2, kTestLabels = 3;

/// The four IDX files of one dataset in a folder, in kFileNames' order, as paths.
using SplitFiles = std::array<std::string, 4>;

/// The sets of a dataset's four IDX files that a folder holds, by the prefix their names share:
/// MNIST's own names, each raw or .gz, also spelt with a dot before "idx"
/// (train-images.idx3-ubyte, as some MNIST mirrors ship it) and behind a prefix (EMNIST's
/// emnist-letters-train-images-idx3-ubyte.gz). Those are the names real downloads have: a user
/// should not have to rename files for a folder to load. Where a folder holds one file in
/// several spellings, MNIST's raw one wins, then its .gz, then the dotted raw and .gz.
std::map<std::string, SplitFiles> fileSetsIn(const fs::path& folder) {
  static const std::regex idxName(
      R"(^(.*)(train-images|train-labels|t10k-images|t10k-labels)([-.])(idx[13])-ubyte(\.gz)?$)");
  std::map<std::string, std::array<std::pair<int, std::string>, 4>>
      ranked;  // (spelling's rank, path)
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::smatch match;
    const std::string file = it->path().filename().string();
    std::error_code fileEc;
    if (!std::regex_match(file, match, idxName) || !fs::is_regular_file(it->path(), fileEc))
      continue;
    const std::string role = match[2].str() + "-" + match[4].str() + "-ubyte";  // as in kFileNames
    const auto known = std::find(std::begin(kFileNames), std::end(kFileNames), role);
    if (known == std::end(kFileNames))
      continue;  // train-images-idx1-ubyte names no file of MNIST's
    const int rank = (match[3].str() == "." ? 2 : 0) + (match[5].matched ? 1 : 0);
    auto& slot = ranked[match[1].str()][std::size_t(known - std::begin(kFileNames))];
    if (slot.second.empty() || rank < slot.first) slot = {rank, it->path().string()};
  }
  std::map<std::string, SplitFiles> sets;
  for (const auto& [prefix, slots] : ranked) {
    for (std::size_t role = 0; role < slots.size(); ++role) sets[prefix][role] = slots[role].second;
  }
  return sets;
}

/// The files a reading needs: a dataset's four, or an evaluation's two test files (eval and
/// predict on a folder of one's own images, an out-of-distribution set: no training split).
enum class Needed { BothSplits, TestSplit };

bool needs(Needed needed, std::size_t role) { return needed == Needed::BothSplits || role >= kTestImages; }

std::size_t filesFound(const SplitFiles& files, Needed needed = Needed::BothSplits) {
  std::size_t found = 0;
  for (std::size_t role = 0; role < files.size(); ++role) found += needs(needed, role) && !files[role].empty();
  return found;
}

bool complete(const SplitFiles& files, Needed needed = Needed::BothSplits) {
  return filesFound(files, needed) == (needed == Needed::BothSplits ? files.size() : files.size() - kTestImages);
}

/// Why a file of `name` (raw or .gz) in `folder` that is there was passed over, or empty
/// where none is: a folder, a pipe, a device or a link to nothing in its place had been told
/// "has no" while `ls` showed it.
std::string whyPresentButNotAFile(const fs::path& folder, const std::string& name) {
  for (const std::string& file : {name, name + ".gz"}) {
    const fs::path path = folder / file;
    std::error_code ec;
    const fs::file_status link = fs::symlink_status(path, ec);
    if (ec || !fs::exists(link)) continue;
    if (fs::is_symlink(link) && !fs::exists(path, ec)) {
      return "dataset folder " + folder.string() + " has " + file + ", but it is a link to " +
             fs::read_symlink(path, ec).string() + ", which does not exist; point it at the IDX file, or put the file there";
    }
    if (const std::string kind = notAFileKind(path.string()); !kind.empty()) {
      return "dataset folder " + folder.string() + " has " + file + ", but it is " + kind +
             ", not a file; put the IDX file there in its place";
    }
  }
  return "";
}

std::string missingFileMessage(const fs::path& folder, const std::string& prefix, std::size_t role, Needed needed) {
  const std::string name = prefix + kFileNames[role];
  if (const std::string why = whyPresentButNotAFile(folder, name); !why.empty()) return why;
  // A folder that may not be listed shows no file at all: said as what it is.
  std::error_code listing;
  const fs::directory_iterator probe(folder, listing);
  if (listing) {
    return "cannot read dataset folder " + folder.string() + ": " + listing.message() +
           "; let the user running EnsembleLab read it (chmod a+rx), or copy the dataset somewhere it can";
  }
  if (needed == Needed::TestSplit) {
    // Listing all four had sent a person scoring a run on their own images after training files.
    return "dataset folder " + folder.string() + " has no " + name + " (or " + name +
           ".gz); to score a run on it, a folder needs only a test split: " + kFileNames[kTestImages] + " and " +
           kFileNames[kTestLabels] + ", each raw or .gz (images with no classes of the run's, as an "
           "out-of-distribution set, may take labels of 0)";
  }
  return "dataset folder " + folder.string() + " has no " + name + " (or " + name +
         ".gz); an MNIST-format folder holds " + kFileNames[0] + ", " + kFileNames[1] + ", " +
         kFileNames[2] + " and " + kFileNames[3] +
         ", each raw or .gz (also spelt train-images.idx3-ubyte, or behind a prefix "
         "the four share, as EMNIST's emnist-letters-train-images-idx3-ubyte.gz)";
}

}  // namespace

namespace {

/// `folder`'s subfolders, by name.
std::vector<fs::path> subfoldersOf(const fs::path& folder) {
  std::error_code ec;
  std::vector<fs::path> folders;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code dirEc;
    if (fs::is_directory(it->path(), dirEc)) folders.push_back(it->path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

bool holdsAWholeDataset(const fs::path& folder) {
  const std::map<std::string, SplitFiles> sets = fileSetsIn(folder);
  return std::any_of(sets.begin(), sets.end(), [](const auto& set) { return complete(set.second); });
}

}  // namespace

std::string subfolderWithADataset(const std::string& folder) {
  const std::vector<fs::path> children = subfoldersOf(folder);
  for (const fs::path& child : children) {
    if (holdsAWholeDataset(child)) return child.string();
  }
  // torchvision's root (ROOT/MNIST/raw, ROOT/FashionMNIST/raw) had been told only "has no
  // train-images-idx3-ubyte".
  for (const fs::path& child : children) {
    for (const fs::path& grandchild : subfoldersOf(child)) {
      if (holdsAWholeDataset(grandchild)) return grandchild.string();
    }
  }
  return "";
}

namespace {

std::vector<int64_t> idxDimensions(const std::string& path);

std::string dimensionsText(const std::vector<int64_t>& dimensions) {
  std::string text;
  for (const int64_t d : dimensions) text += (text.empty() ? "" : " x ") + std::to_string(d);
  return text;
}

/// Where the raw file `raw` has its .gz beside it (gunzip -k leaves both), the raw one is
/// read; refused where their headers say they hold different data (a newer download beside
/// an older unpacked copy), which one it trains on being the user's to say. Two files with
/// one header are taken as one (reading the whole .gz to compare would cost every load).
void refuseADifferentGzipBeside(const std::string& raw) {
  const std::string gzip = raw + ".gz";
  std::error_code ec;
  if (raw.size() >= 3 && raw.compare(raw.size() - 3, 3, ".gz") == 0) return;
  if (!fs::is_regular_file(gzip, ec)) return;
  std::vector<int64_t> rawDims, gzipDims;
  try {
    rawDims = idxDimensions(raw);
    gzipDims = idxDimensions(gzip);
  } catch (const DatasetError&) {
    return;  // one that is no IDX file is not read: the raw one is, and says what it is
  }
  if (rawDims == gzipDims) return;
  throw DatasetError("dataset folder " + fs::path(raw).parent_path().string() + " holds " +
                     fs::path(raw).filename().string() + " (" + dimensionsText(rawDims) + ") and " +
                     fs::path(gzip).filename().string() + " (" + dimensionsText(gzipDims) +
                     "): two different files for one; remove or move the one not to train on");
}

/// The four files of the dataset in `folder`. Its MNIST-named set wins where the folder holds
/// others beside it (a copy under a prefix); otherwise the one whole set, and a folder with
/// several (EMNIST's download holds six) is refused, naming them.
SplitFiles splitFilesIn(const fs::path& folder, Needed needed = Needed::BothSplits) {
  SplitFiles plain;
  for (std::size_t role = 0; role < plain.size(); ++role) {
    for (const std::string candidate :
         {std::string(kFileNames[role]), std::string(kFileNames[role]) + ".gz"}) {
      std::error_code ec;
      if (plain[role].empty() && fs::is_regular_file(folder / candidate, ec))
        plain[role] = (folder / candidate).string();
    }
    if (!plain[role].empty()) refuseADifferentGzipBeside(plain[role]);
  }
  if (complete(plain, needed)) return plain;  // the usual folder: four lookups, no listing

  const std::map<std::string, SplitFiles> sets = fileSetsIn(folder);
  // An unprefixed set wins over prefixed copies beside it in any spelling, as MNIST's own does.
  if (const auto unprefixed = sets.find("");
      unprefixed != sets.end() && complete(unprefixed->second, needed)) {
    return unprefixed->second;
  }
  std::vector<std::string> whole;
  for (const auto& [prefix, files] : sets) {
    if (complete(files, needed)) whole.push_back(prefix);
  }
  if (whole.size() == 1) return sets.at(whole.front());
  if (whole.size() > 1) {
    std::string names;
    for (const std::string& prefix : whole)
      names += (names.empty() ? "" : ", ") + prefix + kFileNames[0];
    throw DatasetError(
        "dataset folder " + folder.string() + " holds " + std::to_string(whole.size()) +
        " datasets (" + names +
        ", each with its three other files); a dataset folder holds one: "
        "copy or link the four files of the one to train on into a folder of its own");
  }
  // No whole set: name the first file missing from the fullest one (the unprefixed on a tie:
  // the map orders "" first).
  const SplitFiles none;
  const SplitFiles* fullest = &none;
  std::string prefix;
  for (const auto& [candidatePrefix, files] : sets) {
    if (filesFound(files, needed) > filesFound(*fullest, needed)) {
      fullest = &files;
      prefix = candidatePrefix;
    }
  }
  std::size_t missing = 0;
  while (missing < fullest->size() && (!needs(needed, missing) || !(*fullest)[missing].empty())) ++missing;
  if (filesFound(*fullest, needed) == 0) {
    const std::string inside = subfolderWithADataset(folder);
    if (!inside.empty()) {
      throw DatasetError("dataset folder " + folder.string() +
                         " holds no MNIST-format files, but its subfolder " + inside +
                         " does: name that subfolder in " + mention::field("dataset"));
    }
    for (const std::string& hint : {csvImportHint(folder.string()), npzImportHint(folder.string())}) {
      if (!hint.empty()) throw DatasetError("dataset folder " + folder.string() + " holds no MNIST-format files; " + hint);
    }
  }
  throw DatasetError(missingFileMessage(folder, prefix, missing, needed));
}

Dataset loadSplit(const std::string& imagesPath, const std::string& labelsPath) {
  // The labels first, in a defined order (as arguments the compiler chose it): where both
  // files are bad, the label file's fault is the one named (ensemble_lab.load_split says the same).
  const IdxArray labels = readIdxFile(labelsPath);
  const IdxArray images = readIdxFile(imagesPath);
  return datasetFromIdx(images, labels, imagesPath, labelsPath);
}

/// The classes of a folder's two splits: the largest label + 1 over both (either may lack a
/// class). Labels far apart with most numbers between them unused are a corrupt byte more
/// likely than a dataset, and are refused; EMNIST's letters leave one number (0) unused.
void agreeOnClasses(DatasetPair& pair, const std::string& folder) {
  const Dataset& widest = pair.train.classes >= pair.test.classes ? pair.train : pair.test;
  const int64_t classes = widest.classes;
  std::vector<bool> occurs(std::size_t(classes), false);
  int64_t largestAt = -1;
  for (const Dataset* split : {&pair.train, &pair.test}) {
    const int64_t* labels = split->labels.data_ptr<int64_t>();
    for (int64_t i = 0; i < split->size(); ++i) {
      occurs[std::size_t(labels[i])] = true;
      if (split == &widest && largestAt < 0 && labels[i] == classes - 1) largestAt = i;
    }
  }
  if (classes < 2) {
    throw DatasetError("dataset folder " + folder + " has one class: every label in " + pair.train.labelsOrigin +
                       " and " + pair.test.labelsOrigin + " is 0, and a classifier needs two or more");
  }
  const int64_t occurring = int64_t(std::count(occurs.begin(), occurs.end(), true));
  if (2 * occurring < classes) {
    throw DatasetError(widest.labelsOrigin + " has the label " + std::to_string(classes - 1) + " (at index " +
                       std::to_string(largestAt) + "), so classes 0-" + std::to_string(classes - 1) +
                       ", but only " + std::to_string(occurring) + " of those " + std::to_string(classes) +
                       " numbers occur as labels in the two splits; the file is corrupt, or the dataset's classes "
                       "need numbers 0 to N-1 with few gaps");
  }
  pair.train.classes = pair.test.classes = classes;
}

/// Both splits of `folder` hold images of one size: a model takes one.
void checkOneImageSize(const std::string& folder, ImageSize train, ImageSize test) {
  if (train.height == test.height && train.width == test.width) return;
  throw DatasetError("dataset folder " + folder + " mixes image sizes: train images are " +
                     std::to_string(train.height) + "x" + std::to_string(train.width) + ", test images " +
                     std::to_string(test.height) + "x" + std::to_string(test.width));
}

/// `folder` exists (datasetFolderOf).
DatasetPair loadFolder(const std::string& folder, const std::string& name) {
  DatasetPair pair;
  pair.name = name;
  const SplitFiles files = splitFilesIn(folder);
  pair.train = loadSplit(files[kTrainImages], files[kTrainLabels]);
  pair.test = loadSplit(files[kTestImages], files[kTestLabels]);
  checkOneImageSize(folder, {pair.train.height(), pair.train.width()}, {pair.test.height(), pair.test.width()});
  agreeOnClasses(pair, folder);
  return pair;
}

std::string datasetFolderOf(const std::string& spec) {
  const std::string folder = spec == "fashion-mnist" ? defaultFashionMnistFolder() : spec;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    if (const std::string npz = npzImportHint(folder); !npz.empty() && spec != "fashion-mnist") {
      throw DatasetError("dataset " + folder + " is a file, not a folder; " + npz, "dataset");
    }
    throw DatasetError(spec == "fashion-mnist"
                           ? "Fashion-MNIST is not installed at " + folder +
                                 "; install it with `apt install dataset-fashion-mnist`, or pass " +
                                 mention::field("dataset") + " DIR for a folder of MNIST-format files"
                           : "dataset folder " + folder + (fs::exists(folder, ec) ? " is a file, not a folder" : " does not exist") +
                                 "; pass " + mention::field("dataset") +
                                 " fashion-mnist, synthetic, or a folder holding the four MNIST-format files",
                       "dataset");
  }
  return folder;
}

/// The dimensions of the IDX file at `path` (raw or gzip), from its header alone.
std::vector<int64_t> idxDimensions(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");  // reads an uncompressed file as it is
  unsigned char header[4 + 4 * 4] = {};
  const int read = file ? gzread(file, header, sizeof header) : -1;
  if (file) gzclose(file);
  const int dims = read >= 4 ? header[3] : 0;
  if (read < 4 || header[0] != 0 || header[1] != 0 || dims < 1 || dims > 4 || read < 4 + 4 * dims) {
    throw DatasetError(path + " is not an IDX file (its header is " + (read < 0 ? "unreadable" : "not 0 0 type dims") +
                       "); an MNIST-format folder holds the four IDX files of MNIST, raw or .gz");
  }
  std::vector<int64_t> dimensions;
  for (int d = 0; d < dims; ++d) {
    const unsigned char* size = header + 4 + 4 * d;
    dimensions.push_back((int64_t(size[0]) << 24) | (int64_t(size[1]) << 16) | (int64_t(size[2]) << 8) | int64_t(size[3]));
  }
  return dimensions;
}

/// The dimensions of the images' IDX file at `path`: (count, height, width).
std::vector<int64_t> imageDimensions(const std::string& path) {
  const std::vector<int64_t> dims = idxDimensions(path);
  const std::vector<int64_t> shape = imageFileShape(dims);
  if (shape.empty()) throw DatasetError(path + notImageDimensions(dims));
  return shape;
}

/// The files of the dataset folder `spec` names, as loading finds them.
SplitFiles checkedFilesOf(const std::string& spec, Needed needed = Needed::BothSplits) {
  return splitFilesIn(datasetFolderOf(spec), needed);
}

}  // namespace

int64_t trainingSampleCount(const std::string& spec) {
  if (spec == "synthetic") return SyntheticOptions{}.trainSize;
  return idxDimensions(checkedFilesOf(spec)[kTrainImages]).front();
}

ImageSize testImageSize(const std::string& spec) {
  if (spec == "synthetic") return {SyntheticOptions{}.side, SyntheticOptions{}.side};
  const std::vector<int64_t> dims = imageDimensions(checkedFilesOf(spec, Needed::TestSplit)[kTestImages]);
  return {dims[1], dims[2]};
}

DatasetShape datasetShape(const std::string& spec) {
  if (spec == "synthetic") {
    const SyntheticOptions synthetic;
    DatasetShape shape{synthetic.trainSize, synthetic.testSize, {synthetic.side, synthetic.side}, kSyntheticClasses, {}};
    for (int64_t label = 0; label < kSyntheticClasses; ++label) shape.labels.push_back(label);  // every class drawn
    return shape;
  }
  const std::string folder = datasetFolderOf(spec);
  const SplitFiles files = splitFilesIn(folder);
  const std::vector<int64_t> train = imageDimensions(files[kTrainImages]);
  const std::vector<int64_t> test = imageDimensions(files[kTestImages]);
  checkOneImageSize(folder, {train[1], train[2]}, {test[1], test[2]});
  DatasetShape shape{train[0], test[0], {train[1], train[2]}, 0, {}};
  std::array<bool, 256> present{};  // a label is one byte
  for (const std::size_t labels : {kTrainLabels, kTestLabels}) {
    const IdxArray file = readIdxFile(files[labels]);
    shape.classes = std::max(shape.classes, classesOfLabels(file));
    for (const std::uint8_t label : file.data) present[label] = true;
  }
  for (std::size_t label = 0; label < present.size(); ++label) {
    if (present[label]) shape.labels.push_back(int64_t(label));
  }
  return shape;
}

std::string defaultFashionMnistFolder() { return ENSEMBLELAB_DEFAULT_FASHION_MNIST; }

std::string recordedDatasetSpec(const std::string& spec) {
  if (spec == "synthetic" || spec == "fashion-mnist") return spec;
  std::error_code ec;
  // Not normalised: "links/../data" is not "data" where links is a symbolic link.
  const fs::path absolute = fs::absolute(spec, ec);
  return ec ? spec : absolute.string();
}

DatasetPair loadDataset(const std::string& spec, int64_t trainLimit, int64_t testLimit) {
  DatasetPair pair;
  if (spec == "synthetic") {
    pair = makeSyntheticDataset();
  } else if (spec == "fashion-mnist") {
    pair = loadFolder(datasetFolderOf(spec), "fashion-mnist");
  } else {
    fs::path folder(spec);
    if (folder.filename().empty()) folder = folder.parent_path();  // "dir/" names "dir"
    pair = loadFolder(datasetFolderOf(spec), folder.filename().string());
  }
  pair.train = pair.train.firstSamples(trainLimit);
  pair.test = pair.test.firstSamples(testLimit);
  return pair;
}

void checkDataset(const std::string& spec) { loadDataset(spec); }

Dataset loadTestSplit(const std::string& spec, int64_t testLimit) {
  if (spec == "synthetic") return makeSyntheticDataset().test.firstSamples(testLimit);
  const SplitFiles files = checkedFilesOf(spec, Needed::TestSplit);
  return loadSplit(files[kTestImages], files[kTestLabels]).firstSamples(testLimit);
}

}  // namespace ensemble
