// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the run token's proof
// (core/comm/RunToken.h): five screens of code instead of a dependency on a TLS library.
// Checked against the FIPS and RFC 4231 test vectors. Torch-free.
#include <array>
#include <cstdint>
#include <string>

namespace ensemble {

std::array<std::uint8_t, 32> sha256(const std::string& bytes);
/// HMAC-SHA-256 of `message` under `key`, as 64 lowercase hex digits.
std::string hmacSha256Hex(const std::string& key, const std::string& message);

}  // namespace ensemble
