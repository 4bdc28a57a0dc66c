// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An engine message in the window's words: the settings it names (core/common/Error.h) as
// the form's labels, never as command-line flags.
#include <QString>

#include <string>

#include "core/config/ConfigFields.h"

namespace ensemble::ui {

inline QString inLabels(const std::string& engineMessage) {
  return QString::fromStdString(phraseMessage(engineMessage, FieldNaming::Labels));
}

}  // namespace ensemble::ui
