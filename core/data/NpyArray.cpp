// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/NpyArray.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/common/Error.h"

namespace ensemble {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
constexpr int64_t kMostElements = int64_t(1) << 40;  // far above any dataset that fits in memory

std::uint64_t littleEndian(const std::uint8_t* p, int width) {
  std::uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) value = (value << 8) | p[i];
  return value;
}

DatasetError badHeader(const std::string& origin, const std::string& why, const std::string& header) {
  return DatasetError(origin + "'s .npy header " + why + " (it reads " + header.substr(0, 160) +
                      "); save the array again with numpy.save or numpy.savez");
}

/// The text after `key`'s colon in the header's dict, blanks skipped; throws where it has no such key.
std::string valueOf(const std::string& header, const std::string& key, const std::string& origin) {
  for (const char quote : {'\'', '"'}) {
    const std::size_t at = header.find(quote + key + quote);
    if (at == std::string::npos) continue;
    std::size_t value = header.find_first_not_of(" \t", at + key.size() + 2);
    if (value == std::string::npos || header[value] != ':') break;
    value = header.find_first_not_of(" \t", value + 1);
    if (value != std::string::npos) return header.substr(value);
  }
  throw badHeader(origin, "has no '" + key + "'", header);
}

/// '|u1', '<i8', '>f4', '|b1': byte order, kind and size. What is no plain number is refused by name.
void readDescr(const std::string& header, NpyArray& array, const std::string& origin) {
  const std::string value = valueOf(header, "descr", origin);
  if (value.empty() || (value[0] != '\'' && value[0] != '"')) {
    throw DatasetError(origin + " holds records of several fields (a structured array); save each field as an array "
                       "of numbers of its own");
  }
  const std::size_t close = value.find(value[0], 1);
  if (close == std::string::npos) throw badHeader(origin, "has an unfinished 'descr'", header);
  std::string descr = value.substr(1, close - 1);
  if (!descr.empty() && std::strchr("<>|=", descr[0])) {
    array.bigEndian = descr[0] == '>';
    descr.erase(0, 1);
  }
  if (descr.empty()) throw badHeader(origin, "names no element type", header);
  // A kind, then its size in bytes ('O', objects, has none; 'M8[ns]', dates, more): what is not
  // a kind and a size is no number, and refused below by its kind.
  array.kind = descr[0];
  const std::string size = descr.substr(1);
  array.itemSize = !size.empty() && size.size() <= 2 && size.find_first_not_of("0123456789") == std::string::npos
                       ? std::stoi(size)
                       : 0;
  const bool number = (array.kind == 'u' || array.kind == 'i') ? (array.itemSize == 1 || array.itemSize == 2 ||
                                                                    array.itemSize == 4 || array.itemSize == 8)
                      : array.kind == 'f' ? (array.itemSize == 4 || array.itemSize == 8)
                      : array.kind == 'b' ? array.itemSize == 1
                                          : false;
  if (!number) {
    const std::string what = array.kind == 'U' || array.kind == 'S' ? "text"
                             : array.kind == 'O'                    ? "Python objects"
                             : array.kind == 'c'                    ? "complex numbers"
                             : array.kind == 'f'                    ? "floating-point numbers of " +
                                                                          std::to_string(8 * array.itemSize) + " bits"
                                                                    : "elements of type '" + descr + "'";
    throw DatasetError(origin + " holds " + what + "; pixels and labels are numbers 0-255: save them as " +
                       "numpy.uint8 (x.astype(numpy.uint8))");
  }
}

std::vector<int64_t> readShape(const std::string& header, const std::string& origin) {
  const std::string value = valueOf(header, "shape", origin);
  const std::size_t close = value.find(')');
  if (value.empty() || value[0] != '(' || close == std::string::npos) {
    throw badHeader(origin, "has a 'shape' that is no tuple", header);
  }
  std::vector<int64_t> dims;
  const std::string inner = value.substr(1, close - 1);
  for (std::size_t start = 0; start <= inner.size();) {
    std::size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    std::string item = inner.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \tL") + 1);  // Python 2's long integers: 60000L
    if (!item.empty()) {
      if (item.size() > 12 || item.find_first_not_of("0123456789") != std::string::npos) {
        throw badHeader(origin, "has a 'shape' of something other than whole numbers", header);
      }
      dims.push_back(std::stoll(item));
    }
    start = comma + 1;
  }
  return dims;
}

/// Element `index` of `array` (in the file's order) as a number.
double elementAt(const NpyArray& array, int64_t index) {
  const std::uint8_t* p = array.bytes.data() + array.dataOffset + std::size_t(index) * std::size_t(array.itemSize);
  std::uint8_t little[8];
  for (int i = 0; i < array.itemSize; ++i) little[i] = array.bigEndian ? p[array.itemSize - 1 - i] : p[i];
  const std::uint64_t raw = littleEndian(little, array.itemSize);
  switch (array.kind) {
    case 'f': {
      if (array.itemSize == 4) {
        float value;
        const auto bits = std::uint32_t(raw);
        std::memcpy(&value, &bits, 4);
        return value;
      }
      double value;
      std::memcpy(&value, &raw, 8);
      return value;
    }
    case 'i': {
      const int shift = 64 - 8 * array.itemSize;  // sign-extends the item's width
      return double(int64_t(raw << shift) >> shift);
    }
    default: return double(raw);
  }
}

/// "3" or "(3, 12, 5)": an element's index as NumPy prints it.
std::string indexText(const std::vector<int64_t>& dims, int64_t flat) {
  if (dims.size() <= 1) return std::to_string(flat);
  std::vector<int64_t> index(dims.size());
  for (std::size_t k = dims.size(); k-- > 0;) {
    index[k] = flat % dims[k];
    flat /= dims[k];
  }
  std::string text = "(";
  for (std::size_t k = 0; k < index.size(); ++k) text += (k ? ", " : "") + std::to_string(index[k]);
  return text + ")";
}

std::string numberText(double value) {
  if (std::isnan(value)) return "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace

int64_t NpyArray::elementCount() const {
  int64_t count = 1;
  for (const int64_t dim : dims) count = dim != 0 && count > kMostElements / dim ? kMostElements + 1 : count * dim;
  return count;
}

NpyArray parseNpy(std::vector<std::uint8_t> bytes, const std::string& origin) {
  if (bytes.size() < kMagicSize + 4 || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
    throw DatasetError(origin + " is not a .npy file (it does not begin with NumPy's magic string); save the array "
                       "with numpy.save or numpy.savez");
  }
  const int major = bytes[6];
  if (major < 1 || major > 3) {
    throw DatasetError(origin + " is a .npy file of version " + std::to_string(major) + "." + std::to_string(bytes[7]) +
                       "; EnsembleLab reads versions 1 to 3, as NumPy writes them");
  }
  const std::size_t lengthSize = major == 1 ? 2 : 4, headerStart = kMagicSize + 2 + lengthSize;
  if (bytes.size() < headerStart) throw DatasetError(origin + " is cut short inside its .npy header");
  const std::uint64_t headerLength = littleEndian(bytes.data() + kMagicSize + 2, int(lengthSize));
  if (headerLength > bytes.size() - headerStart) {
    throw DatasetError(origin + " is cut short inside its .npy header (" + std::to_string(bytes.size()) + " bytes)");
  }
  const std::string header(bytes.begin() + std::ptrdiff_t(headerStart),
                           bytes.begin() + std::ptrdiff_t(headerStart + headerLength));
  NpyArray array;
  readDescr(header, array, origin);
  const std::string order = valueOf(header, "fortran_order", origin);
  if (order.rfind("True", 0) != 0 && order.rfind("False", 0) != 0) {
    throw badHeader(origin, "has a 'fortran_order' that is neither True nor False", header);
  }
  array.fortranOrder = order[0] == 'T';
  array.dims = readShape(header, origin);
  array.dataOffset = std::size_t(headerStart + headerLength);
  const int64_t count = array.elementCount();
  const std::uint64_t present = (bytes.size() - array.dataOffset) / std::size_t(array.itemSize);
  if (count > kMostElements || std::uint64_t(count) != present ||
      (bytes.size() - array.dataOffset) % std::size_t(array.itemSize) != 0) {
    std::string shape;
    for (const int64_t dim : array.dims) shape += (shape.empty() ? "" : "x") + std::to_string(dim);
    throw DatasetError(origin + " holds " + std::to_string(bytes.size() - array.dataOffset) + " bytes of elements, " +
                       "where its shape (" + (shape.empty() ? "a scalar" : shape) + ") of " +
                       std::to_string(array.itemSize) + "-byte elements needs " +
                       (count > kMostElements ? "more than that" : std::to_string(count * array.itemSize)) +
                       "; the file is truncated or corrupt, save or copy it again");
  }
  array.bytes = std::move(bytes);
  return array;
}

std::vector<std::uint8_t> npyElementsAsBytes(const NpyArray& array, const std::string& origin, const std::string& role) {
  const int64_t count = array.elementCount();
  const std::uint8_t* data = array.bytes.data() + array.dataOffset;
  if (array.itemSize == 1 && array.kind != 'i' && (!array.fortranOrder || array.dims.size() <= 1)) {
    return std::vector<std::uint8_t>(data, data + count);  // uint8 or bool in C order: the bytes as they are
  }
  // Fortran order: element (i0, ..., in-1) of the C-ordered output lies at i0 + d0 (i1 + d1 (...)).
  const std::size_t n = array.dims.size();
  std::vector<int64_t> index(n, 0), stride(n, 1);
  for (std::size_t k = 1; k < n; ++k) stride[k] = stride[k - 1] * array.dims[k - 1];
  std::vector<std::uint8_t> out(std::size_t(count), 0);
  int64_t source = 0;
  for (int64_t flat = 0; flat < count; ++flat) {
    const double value = elementAt(array, array.fortranOrder ? source : flat);
    if (!(value >= 0 && value <= 255 && value == std::floor(value))) {
      const std::string where = origin + ": " + role + " " + indexText(array.dims, flat) + " is " + numberText(value);
      if (role == "pixel" && value > 0 && value < 1) {
        throw DatasetError(where + ": pixels are bytes, whole numbers 0-255; these look scaled to 0-1, so multiply "
                           "them by 255 and round (numpy.round(x * 255).astype(numpy.uint8)) before importing");
      }
      throw DatasetError(where + ": " + (role == "label" ? "a label is the class's number, a whole number 0-255"
                                                         : "a " + role + " is a byte, a whole number 0-255"));
    }
    out[std::size_t(flat)] = std::uint8_t(value);
    if (array.fortranOrder) {
      for (std::size_t k = n; k-- > 0;) {  // the C-order index's next value, and its offset in the file
        source += stride[k];
        if (++index[k] < array.dims[k]) break;
        source -= stride[k] * array.dims[k];
        index[k] = 0;
      }
    }
  }
  return out;
}

}  // namespace ensemble
