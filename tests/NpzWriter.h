// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// NumPy's files written by hand, for the tests that import them without NumPy: a .npy file
// as numpy.save writes it, and a ZIP archive of such files, as a .npz is. Qt-only (and zlib).
#include <QByteArray>
#include <QList>
#include <cstdint>
#include <utility>
#include <vector>

namespace npz_files {

/// A version-1 .npy file as numpy.save writes it: the header padded to 64 bytes, then `data`.
QByteArray npyFile(const QByteArray& descr, const QList<int>& shape, const QByteArray& data);

QByteArray bytesOf(const std::vector<std::uint8_t>& values);

/// A ZIP archive of these (name, contents), each stored (method 0) or deflated (8), with these
/// general-purpose flags (1: encrypted). With `zip64`, as an archive past 4 GiB is written: the
/// directory's sizes and offsets in ZIP64 extra fields, and a ZIP64 end record that the end
/// record's saturated fields send the reader to.
QByteArray zipArchive(const QList<std::pair<QByteArray, QByteArray>>& files, int method, int flags = 0,
                      bool zip64 = false);

}  // namespace npz_files
