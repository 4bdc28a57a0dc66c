// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/LongWords.h"

namespace ensemble {
namespace {

/// `at`, or the nearest position before it that starts a UTF-8 character.
std::size_t characterStart(const std::string& text, std::size_t at) {
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  return at;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::string withLongWordsCut(const std::string& message) {
  constexpr std::size_t kLongest = 1000, kHead = 160, kTail = 40;
  std::string out;
  for (std::size_t at = 0; at < message.size();) {
    std::size_t end = at;
    while (end < message.size() && !isSpace(message[end])) ++end;
    if (end - at <= kLongest) {
      out.append(message, at, end - at);
    } else {
      const std::size_t headEnd = characterStart(message, at + kHead), tailStart = characterStart(message, end - kTail);
      out.append(message, at, headEnd - at);
      out += "...(" + std::to_string(tailStart - headEnd) + " bytes left out)...";
      out.append(message, tailStart, end - tailStart);
    }
    while (end < message.size() && isSpace(message[end])) out += message[end++];
    at = end;
  }
  return out;
}

}  // namespace ensemble
