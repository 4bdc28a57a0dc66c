// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/NpzWriter.h"

#include <zlib.h>

#include <QStringList>

#include "tests/Deflate.h"

namespace npz_files {
namespace {

void putLittleEndian(QByteArray& bytes, std::uint64_t value, int width) {
  for (int i = 0; i < width; ++i) bytes += char((value >> (8 * i)) & 0xFF);
}

}  // namespace

QByteArray npyFile(const QByteArray& descr, const QList<int>& shape, const QByteArray& data) {
  QStringList dims;
  for (const int dim : shape) dims << QString::number(dim);
  QByteArray header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims.join(", ").toUtf8() +
                      (shape.size() == 1 ? "," : "") + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  QByteArray file("\x93NUMPY\x01\x00", 8);
  putLittleEndian(file, std::uint64_t(header.size()), 2);
  return file + header + data;
}

QByteArray bytesOf(const std::vector<std::uint8_t>& values) {
  return QByteArray(reinterpret_cast<const char*>(values.data()), int(values.size()));
}

QByteArray zipArchive(const QList<std::pair<QByteArray, QByteArray>>& files, int method, int flags, bool zip64) {
  constexpr std::uint64_t kSaturated = 0xFFFFFFFFu;
  QByteArray archive, directory;
  for (const auto& [name, contents] : files) {
    const QByteArray data =
        method == 8 ? test_files::deflated(contents, test_files::Framing::RawDeflate, Z_BEST_COMPRESSION) : contents;
    const auto crc = std::uint32_t(crc32(0, reinterpret_cast<const Bytef*>(contents.data()), uInt(contents.size())));
    const auto offset = std::uint64_t(archive.size());
    const auto headerFields = [&](bool central) {  // from "version needed" to the extra field's length
      QByteArray fields;
      putLittleEndian(fields, 20, 2);
      putLittleEndian(fields, std::uint64_t(flags), 2);
      putLittleEndian(fields, std::uint64_t(method), 2);
      putLittleEndian(fields, 0, 4);  // time and date
      putLittleEndian(fields, crc, 4);
      putLittleEndian(fields, central && zip64 ? kSaturated : std::uint64_t(data.size()), 4);
      putLittleEndian(fields, central && zip64 ? kSaturated : std::uint64_t(contents.size()), 4);
      putLittleEndian(fields, std::uint64_t(name.size()), 2);
      putLittleEndian(fields, central && zip64 ? 28 : 0, 2);
      return fields;
    };
    putLittleEndian(archive, 0x04034b50, 4);
    archive += headerFields(false) + name + data;
    putLittleEndian(directory, 0x02014b50, 4);
    putLittleEndian(directory, 20, 2);  // version made by
    directory += headerFields(true);
    putLittleEndian(directory, 0, 2 + 2 + 2 + 4);  // comment length, disk, attributes
    putLittleEndian(directory, zip64 ? kSaturated : offset, 4);
    directory += name;
    if (zip64) {  // the extra field: its id and length, then the size, the compressed size, the offset
      putLittleEndian(directory, 0x0001, 2);
      putLittleEndian(directory, 24, 2);
      putLittleEndian(directory, std::uint64_t(contents.size()), 8);
      putLittleEndian(directory, std::uint64_t(data.size()), 8);
      putLittleEndian(directory, offset, 8);
    }
  }
  const auto directoryOffset = std::uint64_t(archive.size());
  archive += directory;
  if (zip64) {
    const auto record = std::uint64_t(archive.size());
    putLittleEndian(archive, 0x06064b50, 4);
    putLittleEndian(archive, 44, 8);                  // the record's size after this field
    putLittleEndian(archive, 45, 2);                  // version made by
    putLittleEndian(archive, 45, 2);                  // version needed
    putLittleEndian(archive, 0, 4 + 4);               // disks
    putLittleEndian(archive, std::uint64_t(files.size()), 8);
    putLittleEndian(archive, std::uint64_t(files.size()), 8);
    putLittleEndian(archive, std::uint64_t(directory.size()), 8);
    putLittleEndian(archive, directoryOffset, 8);
    putLittleEndian(archive, 0x07064b50, 4);          // the locator
    putLittleEndian(archive, 0, 4);
    putLittleEndian(archive, record, 8);
    putLittleEndian(archive, 1, 4);
  }
  putLittleEndian(archive, 0x06054b50, 4);
  putLittleEndian(archive, 0, 4);
  putLittleEndian(archive, zip64 ? 0xFFFF : std::uint64_t(files.size()), 2);
  putLittleEndian(archive, zip64 ? 0xFFFF : std::uint64_t(files.size()), 2);
  putLittleEndian(archive, zip64 ? kSaturated : std::uint64_t(directory.size()), 4);
  putLittleEndian(archive, zip64 ? kSaturated : directoryOffset, 4);
  putLittleEndian(archive, 0, 2);
  return archive;
}

}  // namespace npz_files
