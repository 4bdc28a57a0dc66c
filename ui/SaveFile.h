// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The window's files (exported plots, contact sheets, figures) are made in memory and
// written as the engine writes its own (core/io/AtomicFile.h): whole or not at all. A disk
// that fills midway, or a folder one cannot write, leaves no half image under the name
// asked for and any earlier file of that name as it was; the error says why.
#include <QString>

class QByteArray;
class QImage;

namespace ensemble::ui {

/// Writes `bytes` to `path`; returns the reason in the window's words, or an empty string.
QString saveFile(const QString& path, const QByteArray& bytes);

/// `image` encoded as PNG, saved as saveFile does.
QString savePng(const QString& path, const QImage& image);

}  // namespace ensemble::ui
