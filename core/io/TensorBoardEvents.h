// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// TensorBoard's event-file format, the few parts we write: scalars. Encoded by hand rather
// than through protobuf (a 6 MB dependency and generated code for five fields); checked
// against TensorBoard's own reader in TestTensorBoard.
//
// A file is a sequence of TFRecords (tensorflow/core/lib/io/record_writer.cc):
//   uint64 length, uint32 masked_crc32c(length), bytes[length], uint32 masked_crc32c(bytes)
// little-endian; masked_crc(c) = ((c >> 15) | (c << 17)) + 0xa282ead8, CRC-32C (Castagnoli).
// Each record is an Event protobuf (tensorflow/core/util/event.proto):
//   double wall_time = 1; int64 step = 2; string file_version = 3; Summary summary = 5;
// the first one carries file_version "brain.Event:2", every later one a Summary
// (tensorflow/core/framework/summary.proto): repeated Value value = 1, where
//   Value { string tag = 1; float simple_value = 2; }.
// Torch-free and Qt-free.
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// One scalar as TensorBoard shows it: a point of curve `tag` at `step`.
struct ScalarEvent {
  double wallTime = 0;  ///< seconds since 1970
  int64_t step = 0;
  std::string tag;
  float value = 0;

  bool operator==(const ScalarEvent& other) const {
    return wallTime == other.wallTime && step == other.step && tag == other.tag && value == other.value;
  }
};

/// CRC-32C (Castagnoli) of `size` bytes; crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(const void* data, std::size_t size);
/// The CRC as TFRecord stores it (rotated and offset, so CRCs of CRCs stay strong).
std::uint32_t maskedCrc32c(const void* data, std::size_t size);

/// `payload` framed as one TFRecord.
std::string tfRecord(const std::string& payload);
/// The Event that opens every file (file_version "brain.Event:2"), framed.
std::string fileVersionRecord(double wallTime);
/// One scalar Event, framed.
std::string scalarRecord(const ScalarEvent& event);

/// The scalars in an event file's `bytes`, in order. Reading stops at the first record
/// that is cut short or fails its CRC (a file whose writer was killed mid-record), and
/// `intactBytes`, when given, says how many leading bytes were whole records.
std::vector<ScalarEvent> readScalarRecords(const std::string& bytes, std::size_t* intactBytes = nullptr);

}  // namespace ensemble
