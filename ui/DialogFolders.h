// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the window's file dialogs open: the folder the user last chose for that kind of
// file (dataset folders, or exports), kept across sessions; the home folder before any
// choice. (They opened in the folder the app was launched from, every time.)
#include <QString>

class QWidget;

namespace ensemble::ui::dialogs {

enum class Place { Datasets, Exports };

/// The folder a dialog for `place` opens in.
QString startFolder(Place place);
/// Remembers the folder of `chosen` (a folder, or a file's path) for `place`.
void remember(Place place, const QString& chosen);
/// `fileName` in startFolder(place): a save dialog's suggestion.
QString suggestedPath(Place place, const QString& fileName);

/// QFileDialog's, opening where `place` was last chosen, and remembering the choice. Empty
/// when the user cancels.
QString existingDirectory(QWidget* parent, const QString& caption, Place place);
QString saveFileName(QWidget* parent, const QString& caption, const QString& fileName, const QString& filter,
                     Place place = Place::Exports);

}  // namespace ensemble::ui::dialogs
