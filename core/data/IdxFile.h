// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reader for the IDX format of the MNIST family (http://yann.lecun.com/exdb/mnist/),
// raw or gzip-compressed (detected from the content, not the file name). Torch-free so
// that the fuzz harnesses and the tests can use it on their own.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// The four files of an MNIST-format folder, in this order wherever they are listed: each
/// split's images, then its labels, the training split first.
inline constexpr std::array<const char*, 4> kMnistFileNames{"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                                             "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};

/// An unsigned-byte IDX array: its dimensions and its data in row-major order.
struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;

  /// Number of items along the first dimension (0 for a 0-dimensional array).
  std::uint64_t count() const { return dims.empty() ? 0 : dims.front(); }
};

/// Parses IDX bytes already in memory. `origin` names the source in error messages.
/// Throws DatasetError for a wrong magic number, an unsupported element type, a
/// truncated payload or trailing bytes.
IdxArray parseIdx(const std::uint8_t* bytes, std::size_t size, const std::string& origin);

/// Reads an IDX file, raw or gzip. Throws DatasetError naming `path` on any problem.
/// Memory grows with the data actually present, never with what a header claims.
IdxArray readIdxFile(const std::string& path);

/// The (count, rows, columns) of an image file of these IDX dimensions: its three, or four
/// with one channel, last (NumPy's N x H x W x 1) or first (PyTorch's N x 1 x H x W), whose
/// bytes are in the same order; empty for any other shape (notImageDimensions says why).
std::vector<int64_t> imageFileShape(const std::vector<int64_t>& dims);

/// Why images of these IDX dimensions cannot be trained on (imageFileShape is empty), and
/// what to do, as words that follow the file's name (" has 4 dimensions (...), ..."). It
/// names the shapes other tools write: a label file (the two swapped), flattened images (a
/// CSV's rows), colour images with their channels last (HWC) or first (CHW).
std::string notImageDimensions(const std::vector<int64_t>& dims);

/// An unsigned-byte IDX file of these dimensions and data (row-major): what an import writes.
std::string idxFileBytes(const std::vector<int64_t>& dims, const std::vector<std::uint8_t>& data);

/// A dataset file's bytes, whole. Throws DatasetError naming `path` and what to do where it
/// cannot be opened (missing, not readable by this user) or read.
std::vector<std::uint8_t> readDatasetFile(const std::string& path);

}  // namespace ensemble
