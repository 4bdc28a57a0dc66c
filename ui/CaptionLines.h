// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Breaks a caption into lines that fit a width, for text drawn where nothing wraps it: a
// QCPTextElement is as wide as its longest line, and an exported plot's one-line caption
// was wider than the 640-px image, so both ends of it (the run's name among them) were lost.
#include <QFont>
#include <QString>
#include <QStringList>

namespace ensemble::ui {

/// `text`'s lines (it may hold several, one per run), each broken into lines no wider than
/// `width` pixels in `font`: between " · "-separated parts where it can (a broken line ends
/// in " ·", so the parts stay whole and read on), else at spaces, else anywhere. Joining a
/// line's pieces with spaces gives it back.
QStringList captionLines(const QString& text, const QFont& font, double width);

}  // namespace ensemble::ui
