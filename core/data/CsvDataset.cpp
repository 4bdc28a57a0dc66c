// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/CsvDataset.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

#include "core/common/Error.h"
#include "core/common/NumberText.h"
#include "core/common/TextFormat.h"
#include "core/data/IdxFile.h"

namespace ensemble {
namespace {

namespace fs = std::filesystem;

/// One CSV file (its path the origin): a label and its pixels a row, each a byte.
struct CsvSplit : ImportedSplit {
  int64_t pixelsPerRow = 0;
};

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// A field as a byte: a whole number 0-255 in decimal, blanks or double quotes around it
/// allowed (some writers quote every field). By hand, not NumberText's stoull-based readers:
/// it runs once per pixel, 47 million times for Fashion-MNIST.
std::optional<int> byteOf(std::string_view text) {
  text = trimmed(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = trimmed(text.substr(1, text.size() - 2));
  if (text.empty() || text.size() > 3) return std::nullopt;
  int value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value <= 255 ? std::optional<int>(value) : std::nullopt;
}

/// Whether `text` reads as a number of any kind (a header's first field does not).
bool isNumber(std::string_view text) { return wholeNumber(std::string(trimmed(text))).has_value(); }

/// Why `text`, field `field` (1: the label) of line `line`, is not a byte, and what to do.
std::string notAByte(const std::string& path, int64_t line, int64_t field, std::string_view text) {
  const std::string where = path + " line " + std::to_string(line) + ", " +
                            (field == 1 ? std::string("its label") : "pixel " + std::to_string(field - 1)) + ", ";
  const std::string value(trimmed(text));
  if (value.empty()) return where + "is empty; every row holds a label and its pixels, each a whole number 0-255";
  const std::optional<double> number = wholeNumber(value);
  if (number && *number >= 0 && *number <= 1 && value.find('.') != std::string::npos && field > 1) {
    return where + "is " + value + ": pixels are bytes, whole numbers 0-255; these look scaled to 0-1, so " +
           "multiply them by 255 and round before importing";
  }
  return where + "is '" + value + "': " + (field == 1 ? "a label" : "a pixel") +
         " is a byte, a whole number 0-255" + (field == 1 ? " (the class's number)" : "");
}

/// Reads `path` whole: a header row or none, then a label and its pixels a row.
CsvSplit readCsvSplit(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw DatasetError(fs::exists(path, ec) ? path + " is not a file; name a CSV file"
                                            : path + " does not exist; name a CSV file of a label and its pixels a row");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DatasetError("cannot open " + path + ": " + std::strerror(errno));
  CsvSplit split;
  split.origin = path;
  int64_t fieldsPerRow = 0, firstRow = 0, number = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // written on Windows
    if (number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 mark (Excel's): no field of the row
    if (trimmed(line).empty()) continue;
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      const std::size_t end = line.find(',', start);
      fields.emplace_back(line.data() + start, (end == std::string::npos ? line.size() : end) - start);
      if (end == std::string::npos) break;
      start = end + 1;
    }
    if (firstRow == 0 && !isNumber(fields.front())) {
      // A header (Kaggle's: label,pixel1,...): read past, unless its first column is a pixel.
      // A first row whose label is a number, but no byte (-1, 0.5), is a row, and refused.
      std::string first(trimmed(fields.front()));
      first.erase(std::remove(first.begin(), first.end(), '"'), first.end());
      if (first.rfind("pixel", 0) == 0) {
        throw DatasetError(path + " begins with the column " + first + ", not a label: its images have no labels " +
                           "(as Kaggle's digit-recognizer test.csv, made for submissions), and a test split needs " +
                           "them to be scored; give the test split a CSV with labels, such as part of the training CSV");
      }
      firstRow = -1;  // the header was read: the next row is the first
      continue;
    }
    if (fieldsPerRow == 0) {
      fieldsPerRow = int64_t(fields.size());
      firstRow = number;
      if (fieldsPerRow < 2) {
        throw DatasetError(path + " line " + std::to_string(number) + " holds one field; a row holds a label, " +
                           "then its pixels, separated by commas");
      }
    } else if (int64_t(fields.size()) != fieldsPerRow) {
      throw DatasetError(path + " line " + std::to_string(number) + " has " + std::to_string(fields.size()) +
                         " fields where line " + std::to_string(firstRow) + " has " + std::to_string(fieldsPerRow) +
                         "; every row holds a label and the same number of pixels (the file is cut short or damaged)");
    }
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::optional<int> value = byteOf(fields[f]);
      if (!value) throw DatasetError(notAByte(path, number, int64_t(f) + 1, fields[f]));
      (f == 0 ? split.labels : split.pixels).push_back(std::uint8_t(*value));
    }
  }
  if (in.bad()) throw DatasetError("cannot read " + path + ": I/O error");
  if (split.labels.empty()) throw DatasetError(path + " holds no rows of a label and its pixels");
  split.pixelsPerRow = fieldsPerRow - 1;
  return split;
}

/// The images' rows and columns: given, or the square of the pixels a row.
std::pair<int64_t, int64_t> imageSizeOf(const CsvSplit& split, const CsvImportOptions& options) {
  const int64_t pixels = split.pixelsPerRow;
  if (options.rows > 0 && options.columns > 0) {
    if (options.rows * options.columns != pixels) {
      throw DatasetError("images of " + std::to_string(options.rows) + "x" + std::to_string(options.columns) + " are " +
                         std::to_string(options.rows * options.columns) + " pixels, but the rows of " + split.origin +
                         " hold " + std::to_string(pixels) + " after their label");
    }
    return {options.rows, options.columns};
  }
  const auto side = int64_t(std::llround(std::sqrt(double(pixels))));
  if (side * side != pixels) {
    throw DatasetError("the rows of " + split.origin + " hold " + std::to_string(pixels) + " pixels after their label, " +
                       "not a square number: give the images' size, rows x columns (ensemble-lab-cli import " +
                       "--size ROWSxCOLUMNS)");
  }
  return {side, side};
}

}  // namespace

ImportedDataset readCsvDataset(const CsvImportOptions& options) {
  const CsvSplit train = readCsvSplit(options.trainCsv);
  const CsvSplit test = readCsvSplit(options.testCsv);
  if (train.pixelsPerRow != test.pixelsPerRow) {
    throw DatasetError("the rows of " + train.origin + " hold " + std::to_string(train.pixelsPerRow) +
                       " pixels after their label where those of " + test.origin + " hold " +
                       std::to_string(test.pixelsPerRow) + "; the two splits hold images of one size");
  }
  const auto [rows, columns] = imageSizeOf(train, options);
  return idxFilesOf(train, test, rows, columns);
}

CsvFilesFound csvFilesIn(const std::string& folder) {
  CsvFilesFound found;
  found.names = fileNamesEndingIn(folder, ".csv");
  std::vector<std::string> trains, tests;
  for (const std::string& name : found.names) {
    const std::string lower = lowerCase(name);
    const bool train = lower.find("train") != std::string::npos, test = lower.find("test") != std::string::npos;
    if (train != test) (train ? trains : tests).push_back((fs::path(folder) / name).string());
  }
  if (trains.size() == 1 && tests.size() == 1) {
    found.train = trains.front();
    found.test = tests.front();
  }
  return found;
}

std::string importFolderFor(const std::string& folder) {
  fs::path at(folder);
  if (!at.has_filename()) at = at.parent_path();  // "data/": data-idx, not data/-idx
  return at.string() + "-idx";
}

std::string csvImportHint(const std::string& folder) {
  const CsvFilesFound found = csvFilesIn(folder);
  if (found.names.empty()) return "";
  std::string list;
  for (const std::string& name : found.names) list += (list.empty() ? "" : ", ") + name;
  const std::string command = !found.train.empty()
                                  ? "ensemble-lab-cli import --train " + shellWord(found.train) + " --test " +
                                        shellWord(found.test) + " --to " + shellWord(importFolderFor(folder))
                                  : "ensemble-lab-cli import --train TRAIN.csv --test TEST.csv --to FOLDER";
  return "it holds CSV files (" + list + "): where they hold a label and its pixels a row, as Kaggle's " +
         "Fashion-MNIST does, `" + command + "` writes them as an MNIST-format folder to train on";
}

}  // namespace ensemble
