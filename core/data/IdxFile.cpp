// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/IdxFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "core/common/Error.h"
#include "core/data/Inflate.h"

namespace ensemble {
namespace {

constexpr std::uint8_t kUnsignedByteType = 0x08;
constexpr int kMaxDims = 4;
// The largest payload we accept: far above any image dataset that fits in memory, and a
// guard against a gzip bomb whose header claims more.
constexpr std::uint64_t kMaxPayloadBytes = 32ull << 30;

std::uint32_t readBigEndian32(const std::uint8_t* p) {
  return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
         std::uint32_t(p[3]);
}

std::string typeName(std::uint8_t code) {
  switch (code) {
    case 0x09: return "signed byte";
    case 0x0B: return "short";
    case 0x0C: return "int";
    case 0x0D: return "float";
    case 0x0E: return "double";
    default: return "unknown";
  }
}

bool isGzip(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

}  // namespace

IdxArray parseIdx(const std::uint8_t* bytes, std::size_t size, const std::string& origin) {
  if (size < 4) {
    throw DatasetError(origin + " is not an IDX file: it holds " + std::to_string(size) +
                       " bytes, fewer than the 4-byte magic number");
  }
  if (bytes[0] != 0 || bytes[1] != 0) {
    char magic[16];
    std::snprintf(magic, sizeof magic, "0x%02X%02X%02X%02X", bytes[0], bytes[1], bytes[2],
                  bytes[3]);
    throw DatasetError(origin + " has a wrong IDX magic number " + magic +
                       " (expected 0x000008NN); is it an MNIST-format file?");
  }
  if (bytes[2] != kUnsignedByteType && typeName(bytes[2]) == std::string("unknown")) {  // zeros had been "of type unknown"
    char magic[16];
    std::snprintf(magic, sizeof magic, "0x%02X%02X%02X%02X", bytes[0], bytes[1], bytes[2], bytes[3]);
    throw DatasetError(origin + " is not an IDX file: its magic number " + magic +
                       " names no IDX element type (expected 0x000008NN); is it an MNIST-format file?");
  }
  if (bytes[2] != kUnsignedByteType) {
    throw DatasetError(origin + " holds IDX elements of type " + typeName(bytes[2]) +
                       "; EnsembleLab reads unsigned-byte (0x08) IDX files");
  }
  const int ndims = bytes[3];
  if (ndims < 1 || ndims > kMaxDims) {
    throw DatasetError(origin + " declares " + std::to_string(ndims) +
                       " dimensions; IDX image and label files have 1 to 4");
  }
  const std::size_t headerSize = 4 + 4 * std::size_t(ndims);
  if (size < headerSize) {
    throw DatasetError(origin + " is truncated inside its header (" + std::to_string(size) +
                       " of " + std::to_string(headerSize) + " bytes)");
  }
  IdxArray array;
  std::uint64_t payload = 1;
  for (int d = 0; d < ndims; ++d) {
    const std::uint32_t dim = readBigEndian32(bytes + 4 + 4 * d);
    array.dims.push_back(dim);
    if (dim != 0 && payload > kMaxPayloadBytes / dim) payload = kMaxPayloadBytes + 1;
    else payload *= dim;
  }
  const std::uint64_t present = size - headerSize;
  // The dimensions too, either way: a wrong count of them in the magic number reads as a size.
  std::string shape;
  for (const std::uint32_t dim : array.dims) shape += (shape.empty() ? "" : " x ") + std::to_string(dim);
  const std::string declared = std::to_string(ndims) + (ndims == 1 ? " dimension, " : " dimensions, ") + shape +
                               ", so " +
                               (payload > kMaxPayloadBytes ? "more than " + std::to_string(kMaxPayloadBytes)
                                                           : std::to_string(payload)) +
                               " bytes of data";
  if (present < payload) {
    throw DatasetError(origin + " is truncated: its header declares " + declared + ", but it holds " +
                       std::to_string(present) + "; download or copy it again");
  }
  if (present > payload) {
    // An image file whose magic number says 1 dimension had read as "corrupt" alone.
    throw DatasetError(origin + " has " + std::to_string(present - payload) + " bytes after the data its header "
                       "declares (" + declared + "); the file is corrupt, or its magic number declares too few "
                       "dimensions (an image file has 3: count, rows, columns; a label file 1)");
  }
  array.data.assign(bytes + headerSize, bytes + size);
  return array;
}

/// The gzip'd IDX file `compressed` inflated, up to `limit` bytes; with `prefixOnly`, what it
/// holds up to there (its header), and the whole or an error otherwise.
static std::vector<std::uint8_t> gunzipIdx(const std::vector<std::uint8_t>& compressed, std::uint64_t limit,
                                           const std::string& origin, bool prefixOnly) {
  Inflated inflated = inflateUpTo(compressed.data(), compressed.size(), Compression::Gzip, limit);
  switch (inflated.ending) {
    case Inflated::Ending::Complete: break;
    case Inflated::Ending::PastLimit:
      if (prefixOnly) break;
      throw DatasetError(origin + " decompresses to more than " + std::to_string(limit) +
                         " bytes, more than its IDX header declares; the file is corrupt");
    case Inflated::Ending::CutShort:
    case Inflated::Ending::Corrupt: {
      const std::string why = inflated.ending == Inflated::Ending::CutShort ? "the compressed data ends early"
                              : inflated.corruption.empty()                  ? "corrupt gzip data"
                                                                             : inflated.corruption;
      throw DatasetError(origin + " cannot be decompressed (" + why + "); the file is truncated or corrupt, copy it again");
    }
  }
  return std::move(inflated.bytes);
}

std::vector<int64_t> imageFileShape(const std::vector<int64_t>& dims) {
  if (dims.size() == 3) return dims;
  if (dims.size() == 4 && dims[3] == 1) return {dims[0], dims[1], dims[2]};
  if (dims.size() == 4 && dims[1] == 1) return {dims[0], dims[2], dims[3]};
  return {};
}

std::string notImageDimensions(const std::vector<int64_t>& dims) {
  constexpr const char* kShape = "an image file has 3 (count, rows, columns)";
  std::string shape;
  for (const int64_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
  switch (dims.size()) {
    case 1: return std::string(" has 1 dimension, as a label file has; ") + kShape + ": is it a label file?";
    case 2:
      return " has 2 dimensions (" + shape + "), images flattened into rows of pixels; " + kShape +
             ": write it with each image's rows and columns (" + std::to_string(dims[0]) + "xROWSxCOLUMNS)";
    case 4: {
      // Channels last (NumPy's images, HWC) or first (PyTorch's, CHW): the short one of the two.
      const bool last = dims[3] <= 4, first = !last && dims[1] <= 4;
      if (!last && !first) break;
      // (One channel is read as it is: imageFileShape.)
      const int64_t channels = last ? dims[3] : dims[1];
      const std::string layout = last ? "(count, rows, columns, channels)" : "(count, channels, rows, columns)";
      const std::string wanted = std::to_string(dims[0]) + "x" + std::to_string(last ? dims[1] : dims[2]) + "x" +
                                 std::to_string(last ? dims[2] : dims[3]);
      return " has 4 dimensions (" + shape + "), " + layout + ": " + std::to_string(channels) + " channels, colour images; " +
             kShape + " (or 4 with one channel), one byte a pixel: convert the images to greyscale and write them as " +
             wanted;
    }
    default: break;
  }
  return " has " + std::to_string(dims.size()) + " dimensions (" + shape + "); " + kShape;
}

std::vector<std::uint8_t> readDatasetFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    // A file that is there but may not be read is its permissions' matter, not its name's.
    throw DatasetError("cannot open " + path + ": " + std::strerror(error) +
                       (error == EACCES || error == EPERM
                            ? "; let the user running EnsembleLab read it (chmod a+r), or copy the dataset somewhere it can"
                            : "; check the dataset folder and its file names"));
  }
  std::vector<std::uint8_t> bytes;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    bytes.insert(bytes.end(), buffer, buffer + in.gcount());
  }
  if (in.bad()) throw DatasetError("cannot read " + path + ": I/O error");
  return bytes;
}


static void putBigEndian32(std::string& bytes, int64_t value) {
  for (const int shift : {24, 16, 8, 0}) bytes += char((std::uint64_t(value) >> shift) & 0xFF);
}

std::string idxFileBytes(const std::vector<int64_t>& dims, const std::vector<std::uint8_t>& data) {
  std::string bytes{'\0', '\0', '\x08', char(dims.size())};
  for (const int64_t dim : dims) putBigEndian32(bytes, dim);
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size());
  return bytes;
}

IdxArray readIdxFile(const std::string& path) {
  std::vector<std::uint8_t> bytes = readDatasetFile(path);
  if (isGzip(bytes)) {
    // Decompress the header first to learn how much data to expect, then allow exactly
    // that much (plus one byte so trailing data is reported, not silently dropped).
    const std::vector<std::uint8_t> head = gunzipIdx(bytes, 4 + 4 * kMaxDims, path, true);
    std::uint64_t limit = kMaxPayloadBytes + 64;
    if (head.size() >= 4 && head[0] == 0 && head[1] == 0 && head[3] >= 1 && head[3] <= kMaxDims &&
        head.size() >= 4 + 4 * std::size_t(head[3])) {
      std::uint64_t payload = 1;
      for (int d = 0; d < head[3] && payload <= kMaxPayloadBytes; ++d) {
        // Saturating, as parseIdx counts: 2^20 x 2^15 x 2^30 wrapped to a limit of 17 bytes.
        const std::uint64_t dim = readBigEndian32(head.data() + 4 + 4 * d);
        payload = dim != 0 && payload > kMaxPayloadBytes / dim ? kMaxPayloadBytes + 1 : payload * dim;
      }
      limit = std::min<std::uint64_t>(limit, 4 + 4 * head[3] + payload + 1);
    }
    bytes = gunzipIdx(bytes, limit, path, false);
  }
  return parseIdx(bytes.data(), bytes.size(), path);
}

}  // namespace ensemble
