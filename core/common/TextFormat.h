// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Small text formats shared by the CLI's progress line and the window's status line.
#include <cstdio>
#include <string>

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

}  // namespace ensemble
