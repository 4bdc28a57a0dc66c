// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/data/DatasetShift.h"

#include <cmath>
#include <map>

#include "core/common/EnumNames.h"
#include "core/common/Error.h"
#include "core/common/NumberText.h"

namespace ensemble {
namespace {

constexpr EnumName<ShiftKind> kKindNames[] = {{ShiftKind::Rotate, "rotate"},
                                               {ShiftKind::Translate, "translate"},
                                               {ShiftKind::Noise, "noise"},
                                               {ShiftKind::Contrast, "contrast"}};

ShiftKind parseKind(const std::string& name) {
  if (const auto kind = valueNamed(kKindNames, name)) return *kind;
  throw ConfigError("unknown shift kind \"" + name + "\"; the kinds are rotate (degrees), translate (pixels), "
                    "noise (standard deviation on [0, 1] pixels) and contrast (amount from 0 to 1), as KIND:LEVEL[,LEVEL...]");
}

void checkLevel(ShiftKind kind, double level, const std::string& text) {
  if (!std::isfinite(level) || level < 0) {
    throw ConfigError("shift level " + text + " of " + shiftKindName(kind) + " must be a number of 0 or more (0: no shift)");
  }
  if (kind == ShiftKind::Contrast && level > 1) {
    throw ConfigError("contrast level " + text + " must be from 0 (unchanged) to 1 (a flat grey image)");
  }
}

}  // namespace

std::string shiftKindName(ShiftKind kind) { return nameOf(kKindNames, kind); }

std::vector<DatasetShift> parseShifts(const std::string& text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos || colon + 1 == text.size()) {
    throw ConfigError("a shift is KIND:LEVEL[,LEVEL...] (e.g. rotate:0,15,30), got \"" + text + "\"");
  }
  const ShiftKind kind = parseKind(text.substr(0, colon));
  std::vector<DatasetShift> shifts;
  std::size_t start = colon + 1;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    // As every flag's number (NumberText.h): stod alone read C's hex floats ("rotate:0x10" was
    // 16 degrees) and called 1e400 no number.
    const std::optional<double> level = wholeNumber(item);
    if (!level) {
      const std::string range = numberOutOfRange(item);
      throw ConfigError("shift level \"" + item + "\" of " + shiftKindName(kind) +
                        (range.empty() ? " is not a number" : " is " + range));
    }
    checkLevel(kind, *level, item);
    shifts.push_back({kind, *level});
    start = comma + 1;
  }
  return shifts;
}

std::vector<DatasetShift> shiftsOfFlags(const std::vector<std::string>& flags, std::string& repeated) {
  std::vector<DatasetShift> shifts;
  std::map<ShiftKind, std::string> flagOfKind;
  repeated.clear();
  for (const std::string& text : flags) {
    const std::vector<DatasetShift> levels = parseShifts(text);
    const ShiftKind kind = levels.front().kind;
    const auto [given, isNew] = flagOfKind.emplace(kind, text);
    if (!isNew) {
      repeated = "--shift " + given->second + " and --shift " + text + " are both " + shiftKindName(kind) +
                 "; give its levels in one --shift (" + shiftKindName(kind) + ":L1,L2,...)";
      return {};
    }
    shifts.insert(shifts.end(), levels.begin(), levels.end());
  }
  return shifts;
}

}  // namespace ensemble
