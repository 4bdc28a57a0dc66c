// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// NumPy's .npy format (numpy.lib.format, versions 1-3): a magic string, a header that is a
// Python dict literal ({'descr': '|u1', 'fortran_order': False, 'shape': (60000, 28, 28), }),
// then the array's elements. Read to import a dataset saved from NumPy or Keras
// (core/data/NpzDataset.h). Torch-free.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// An array of numbers from a .npy file: its shape, its element type, and its elements' bytes
/// as the file holds them.
struct NpyArray {
  std::vector<int64_t> dims;
  char kind = 'u';  // NumPy's kind: 'u' unsigned, 'i' signed, 'f' floating point, 'b' bool
  int itemSize = 1;
  bool bigEndian = false;
  bool fortranOrder = false;
  std::vector<std::uint8_t> bytes;  // the whole file
  std::size_t dataOffset = 0;       // where its elements begin

  int64_t elementCount() const;
};

/// Parses a .npy file's bytes. Throws DatasetError naming `origin` where they are no .npy
/// file, its header cannot be read, its elements are no numbers (strings, objects, records,
/// complex), or there are fewer or more of them than its shape says.
NpyArray parseNpy(std::vector<std::uint8_t> bytes, const std::string& origin);

/// The array's elements in C order (the last index fastest, whatever the file's order), each
/// as a byte: every one must be a whole number 0-255. `role` says what they are, for the
/// message that names the first one that is not ("pixel" or "label"). Throws DatasetError.
std::vector<std::uint8_t> npyElementsAsBytes(const NpyArray& array, const std::string& origin, const std::string& role);

}  // namespace ensemble
