// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small text formats shared by the CLI's progress line and the window's status line, and
// the commands its messages give to copy.
#include <cstdio>
#include <string>
#include <vector>

namespace ensemble {

/// "42s", "3m07s" or "1h05m": durations the way a progress line shows them.
inline std::string formatDuration(double seconds) {
  const long total = long(seconds + 0.5);
  char text[32];
  if (total >= 3600) std::snprintf(text, sizeof text, "%ldh%02ldm", total / 3600, total / 60 % 60);
  else if (total >= 60) std::snprintf(text, sizeof text, "%ldm%02lds", total / 60, total % 60);
  else std::snprintf(text, sizeof text, "%lds", total);
  return text;
}

/// `text` as one word of a shell command a person copies: as it is where that is safe
/// (letters, digits, non-ASCII, and _ . / , : = + @ % -), else in single quotes ("runs/my
/// run" -> 'runs/my run'; a quote inside as '\''). Paths in "resume with: ..." hints.
inline std::string shellWord(const std::string& text) {
  bool plain = !text.empty();
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool safe = byte >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      std::string("_./,:=+@%-").find(c) != std::string::npos;
    plain = plain && safe;
  }
  if (plain) return text;
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// "a, b, c": names listed in a message.
inline std::string commaList(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

}  // namespace ensemble
