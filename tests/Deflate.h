// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Compressed bytes for the tests' files, as the tools users have write them. Qt and zlib only
// (the window's tests use it without LibTorch).
#include <QByteArray>

namespace test_files {

/// How the deflate stream is framed: as `gzip` writes a file, or bare, as a ZIP archive's
/// method 8 (numpy.savez_compressed) holds it.
enum class Framing { Gzip, RawDeflate };

/// `raw` deflated at zlib's `level` (gzip's default 6; numpy's zipfile writes at 6 too).
QByteArray deflated(const QByteArray& raw, Framing framing, int level = 6);

}  // namespace test_files
