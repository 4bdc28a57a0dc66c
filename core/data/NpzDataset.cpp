// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/NpzDataset.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

#include "core/common/Error.h"
#include "core/common/TextFormat.h"
#include "core/data/IdxFile.h"
#include "core/data/NpyArray.h"
#include "core/data/ZipArchive.h"

namespace ensemble {
namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

std::string shapeText(const std::vector<int64_t>& dims) {
  std::string text;
  for (const int64_t dim : dims) text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text.empty() ? "a scalar" : text;
}

/// The archive's arrays by name in lower case, ".npy" dropped; `names` as they are written.
std::map<std::string, const ZipEntry*> arraysByName(const std::vector<ZipEntry>& entries, std::string& names) {
  std::map<std::string, const ZipEntry*> arrays;
  for (const ZipEntry& entry : entries) {
    const std::string name = endsWith(lowerCase(entry.name), ".npy") ? entry.name.substr(0, entry.name.size() - 4) : entry.name;
    arrays[lowerCase(name)] = &entry;
    names += (names.empty() ? "" : ", ") + name;
  }
  return arrays;
}

/// The images' rows and columns: their shape's, or for images flattened into rows of pixels
/// (N x H*W), the size given or the square.
std::pair<int64_t, int64_t> imageSizeOf(const NpyArray& images, const std::string& origin, int64_t rows, int64_t columns) {
  if (images.dims.size() >= 2 && images.elementCount() == 0 && images.dims[0] > 0) {
    throw DatasetError(origin + " has the shape " + shapeText(images.dims) + ": images of no pixels");
  }
  const std::vector<int64_t> shape = imageFileShape(images.dims);
  if (!shape.empty()) {
    if (rows > 0 && (rows != shape[1] || columns != shape[2])) {
      throw DatasetError(origin + " holds images of " + std::to_string(shape[1]) + "x" + std::to_string(shape[2]) +
                         ", not the " + std::to_string(rows) + "x" + std::to_string(columns) +
                         " given; give no size for images saved with their rows and columns");
    }
    return {shape[1], shape[2]};
  }
  if (images.dims.size() != 2) throw DatasetError(origin + notImageDimensions(images.dims));
  const int64_t pixels = images.dims[1];
  if (rows > 0) {
    if (rows * columns != pixels) {
      throw DatasetError("images of " + std::to_string(rows) + "x" + std::to_string(columns) + " are " +
                         std::to_string(rows * columns) + " pixels, but those of " + origin + " (" +
                         shapeText(images.dims) + ") are " + std::to_string(pixels));
    }
    return {rows, columns};
  }
  const auto side = int64_t(std::llround(std::sqrt(double(pixels))));
  if (side * side != pixels) {
    throw DatasetError(origin + " holds images flattened into rows of " + std::to_string(pixels) +
                       " pixels, not a square number: give the images' size, rows x columns (ensemble-lab-cli import "
                       "--size ROWSxCOLUMNS)");
  }
  return {side, side};
}

/// The labels' count: their shape is N, or N x 1.
int64_t labelCount(const NpyArray& labels, const std::string& origin) {
  if (labels.dims.size() == 1 || (labels.dims.size() == 2 && labels.dims[1] == 1)) return labels.dims[0];
  if (labels.dims.size() == 2) {
    throw DatasetError(origin + " holds labels of " + shapeText(labels.dims) + ", one-hot vectors of " +
                       std::to_string(labels.dims[1]) + " classes: save each image's class number instead " +
                       "(y.argmax(axis=1))");
  }
  throw DatasetError(origin + " has the shape " + shapeText(labels.dims) +
                     "; labels are one class number an image, an array of N");
}

}  // namespace

ImportedDataset npzDatasetOf(const std::vector<std::uint8_t>& bytes, const std::string& origin, int64_t rows,
                             int64_t columns) {
  const std::vector<ZipEntry> entries = zipEntries(bytes, origin);
  std::string names;
  const std::map<std::string, const ZipEntry*> arrays = arraysByName(entries, names);
  const char* const* chosen = nullptr;
  for (const auto& set : kNpzArrayNames) {
    if (std::all_of(std::begin(set), std::end(set), [&](const char* name) { return arrays.count(name) > 0; })) {
      chosen = set;
      break;
    }
  }
  if (!chosen) {
    throw DatasetError(origin + " holds " + (names.empty() ? "no arrays" : "the arrays " + names) +
                       "; EnsembleLab imports four, x_train, y_train, x_test and y_test, as Keras's mnist.npz holds "
                       "them (or train_images, train_labels, test_images and test_labels): save them under those names "
                       "(numpy.savez(FILE, x_train=..., y_train=..., x_test=..., y_test=...))");
  }
  ImportedSplit splits[2];
  std::pair<int64_t, int64_t> sizes[2];
  for (int s = 0; s < 2; ++s) {
    const ZipEntry& imageEntry = *arrays.at(chosen[2 * s]);
    const ZipEntry& labelEntry = *arrays.at(chosen[2 * s + 1]);
    const std::string imageOrigin = imageEntry.name + " in " + origin, labelOrigin = labelEntry.name + " in " + origin;
    // The labels first, as the IDX loader reads them: small, and where both are bad, theirs is named.
    const NpyArray labels = parseNpy(zipEntryData(bytes, labelEntry, origin), labelOrigin);
    const int64_t count = labelCount(labels, labelOrigin);
    const NpyArray images = parseNpy(zipEntryData(bytes, imageEntry, origin), imageOrigin);
    sizes[s] = imageSizeOf(images, imageOrigin, rows, columns);
    const int64_t imageCount = images.dims.empty() ? 0 : images.dims[0];
    if (imageCount != count) {
      throw DatasetError(origin + " holds " + std::to_string(imageCount) + " images in " + imageEntry.name + " and " +
                         std::to_string(count) + " labels in " + labelEntry.name + "; each image needs its label");
    }
    if (count == 0) throw DatasetError(imageOrigin + " holds no images");
    splits[s].origin = imageOrigin;
    splits[s].labels = npyElementsAsBytes(labels, labelOrigin, "label");
    splits[s].pixels = npyElementsAsBytes(images, imageOrigin, "pixel");
  }
  if (sizes[0] != sizes[1]) {
    throw DatasetError(origin + " holds training images of " + std::to_string(sizes[0].first) + "x" +
                       std::to_string(sizes[0].second) + " and test images of " + std::to_string(sizes[1].first) + "x" +
                       std::to_string(sizes[1].second) + "; the two splits hold images of one size");
  }
  return idxFilesOf(splits[0], splits[1], sizes[0].first, sizes[0].second);
}

ImportedDataset readNpzDataset(const NpzImportOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(options.npz, ec)) {
    throw DatasetError(fs::exists(options.npz, ec) ? options.npz + " is not a file; name a NumPy .npz file"
                                                   : options.npz + " does not exist; name a NumPy .npz file");
  }
  return npzDatasetOf(readDatasetFile(options.npz), options.npz, options.rows, options.columns);
}

std::vector<std::string> npzFilesIn(const std::string& folder) { return fileNamesEndingIn(folder, ".npz"); }

std::string importFolderForNpz(const std::string& npz) {
  const fs::path path(npz);
  return (path.parent_path() / path.stem()).string() + "-idx";
}

std::string npzImportHint(const std::string& path) {
  std::error_code ec;
  const auto command = [](const std::string& npz) {
    return "`ensemble-lab-cli import --npz " + shellWord(npz) + " --to " + shellWord(importFolderForNpz(npz)) + "`";
  };
  if (fs::is_regular_file(path, ec)) {
    if (!endsWith(lowerCase(path), ".npz")) return "";
    return "it is a NumPy archive: where it holds x_train, y_train, x_test and y_test, as Keras's mnist.npz does, " +
           command(path) + " writes it as an MNIST-format folder to train on";
  }
  const std::vector<std::string> names = npzFilesIn(path);
  if (names.empty()) {
    // Arrays saved one a file (numpy.save): one archive of the four is what the import reads.
    const std::vector<std::string> arrays = fileNamesEndingIn(path, ".npy");
    if (arrays.empty()) return "";
    std::string list;
    for (const std::string& name : arrays) list += (list.empty() ? "" : ", ") + name;
    return "it holds NumPy arrays (" + list + "): save the four in one archive, numpy.savez(\"mnist.npz\", " +
           "x_train=..., y_train=..., x_test=..., y_test=...), and `ensemble-lab-cli import --npz mnist.npz --to FOLDER` " +
           "writes it as an MNIST-format folder to train on";
  }
  if (names.size() == 1) {
    return "it holds the NumPy archive " + names.front() + ": where it holds x_train, y_train, x_test and y_test, as " +
           "Keras's mnist.npz does, " + command((fs::path(path) / names.front()).string()) +
           " writes it as an MNIST-format folder to train on";
  }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return "it holds NumPy archives (" + list + "): `ensemble-lab-cli import --npz ARCHIVE.npz --to FOLDER` writes " +
         "one as an MNIST-format folder to train on";
}

}  // namespace ensemble
