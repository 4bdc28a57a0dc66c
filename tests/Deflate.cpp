// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/Deflate.h"

#include <zlib.h>

namespace test_files {

QByteArray deflated(const QByteArray& raw, Framing framing, int level) {
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer around the stream; negative: none.
  const int windowBits = framing == Framing::Gzip ? 16 + MAX_WBITS : -MAX_WBITS;
  deflateInit2(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
  QByteArray out(int(deflateBound(&stream, uLong(raw.size()))), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  stream.avail_in = uInt(raw.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = uInt(out.size());
  deflate(&stream, Z_FINISH);  // one call: deflateBound leaves room for all of it
  out.resize(int(stream.total_out));
  deflateEnd(&stream);
  return out;
}

}  // namespace test_files
