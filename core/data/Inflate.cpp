// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/Inflate.h"

#include <zlib.h>

#include <algorithm>
#include <limits>
#include <new>

namespace ensemble {
namespace {

bool startsAGzipMember(const Bytef* at, std::size_t left) { return left >= 2 && at[0] == 0x1f && at[1] == 0x8b; }

}  // namespace

Inflated inflateUpTo(const std::uint8_t* data, std::size_t size, Compression compression, std::uint64_t limit) {
  z_stream stream{};
  // 16 + MAX_WBITS: a gzip header and trailer around the deflate stream; negative: none.
  const int windowBits = compression == Compression::Gzip ? 16 + MAX_WBITS : -MAX_WBITS;
  if (inflateInit2(&stream, windowBits) != Z_OK) throw std::bad_alloc();  // its one reason with a valid windowBits: no memory
  stream.next_in = const_cast<Bytef*>(data);
  std::size_t inputLeft = size;
  Inflated result;
  std::uint8_t chunk[1 << 16];
  for (;;) {
    // avail_in is 32 bits wide: a file over 4 GiB is fed in pieces.
    const uInt feed = uInt(std::min<std::size_t>(inputLeft, std::numeric_limits<uInt>::max()));
    stream.avail_in = feed;
    stream.next_out = chunk;
    stream.avail_out = sizeof chunk;
    const int status = inflate(&stream, Z_NO_FLUSH);
    inputLeft -= feed - stream.avail_in;
    const std::size_t produced = sizeof chunk - stream.avail_out;
    // Z_BUF_ERROR with output is zlib asking for more room, which the next round gives; without
    // output, it has no input left to go on with.
    if (status != Z_OK && status != Z_STREAM_END && !(status == Z_BUF_ERROR && produced > 0)) {
      result.ending = status == Z_BUF_ERROR ? Inflated::Ending::CutShort : Inflated::Ending::Corrupt;
      if (status != Z_BUF_ERROR && stream.msg) result.corruption = stream.msg;
      break;
    }
    if (result.bytes.size() + produced > limit) {
      result.bytes.insert(result.bytes.end(), chunk, chunk + (limit - result.bytes.size()));
      result.ending = Inflated::Ending::PastLimit;
      break;
    }
    result.bytes.insert(result.bytes.end(), chunk, chunk + produced);
    if (status == Z_STREAM_END) {
      if (compression != Compression::Gzip || !startsAGzipMember(stream.next_in, inputLeft)) break;
      inflateReset(&stream);  // the next member: gzip reads them all as one file, and so do we
    }
  }
  inflateEnd(&stream);
  return result;
}

}  // namespace ensemble
