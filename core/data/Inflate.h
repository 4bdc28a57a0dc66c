// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one inflate loop of the dataset readers: gzip'd IDX files (IdxFile) and the deflated
// entries of a NumPy .npz (ZipArchive). Bounded by the caller, so that a file whose few
// compressed bytes claim gigabytes (a "bomb") stops at what its header or directory allows.
// Torch-free, as its callers are.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ensemble {

/// How the compressed bytes are framed.
enum class Compression {
  Gzip,        // RFC 1952; several members one after another read as one (cat a.gz b.gz, pigz, bgzip)
  RawDeflate,  // RFC 1951 alone, as a ZIP archive's method 8 holds it
};

/// What inflating gave, and how it ended.
struct Inflated {
  enum class Ending {
    Complete,   // the stream (every gzip member) ended within the limit
    PastLimit,  // it would give more than the limit: `bytes` holds the first `limit`
    CutShort,   // the compressed bytes ran out before the stream ended
    Corrupt,    // the compressed bytes are not a valid stream (`corruption` says how)
  };
  std::vector<std::uint8_t> bytes;
  Ending ending = Ending::Complete;
  std::string corruption;  // zlib's words for Corrupt, where it has them (else empty)
};

/// Inflates the `size` bytes at `data`, producing at most `limit` bytes. Where the stream is
/// corrupt, that is what is reported, even where it would also have passed the limit. Bytes
/// after the last gzip member (or the deflate stream) are left alone.
Inflated inflateUpTo(const std::uint8_t* data, std::size_t size, Compression compression, std::uint64_t limit);

}  // namespace ensemble
