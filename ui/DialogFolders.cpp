// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/DialogFolders.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace ensemble::ui::dialogs {
namespace {

QString keyOf(Place place) { return place == Place::Datasets ? "dialogs/datasets" : "dialogs/exports"; }

}  // namespace

QString startFolder(Place place) {
  const QString folder = QSettings().value(keyOf(place)).toString();
  return !folder.isEmpty() && QFileInfo(folder).isDir() ? folder : QDir::homePath();
}

void remember(Place place, const QString& chosen) {
  if (chosen.isEmpty()) return;
  const QFileInfo info(chosen);
  QSettings().setValue(keyOf(place), info.isDir() ? info.absoluteFilePath() : info.absolutePath());
}

QString suggestedPath(Place place, const QString& fileName) { return QDir(startFolder(place)).filePath(fileName); }

QString existingDirectory(QWidget* parent, const QString& caption, Place place) {
  const QString folder = QFileDialog::getExistingDirectory(parent, caption, startFolder(place));
  remember(place, folder);
  return folder;
}

QString saveFileName(QWidget* parent, const QString& caption, const QString& fileName, const QString& filter,
                     Place place) {
  const QString path = QFileDialog::getSaveFileName(parent, caption, suggestedPath(place, fileName), filter);
  remember(place, path);
  return path;
}

}  // namespace ensemble::ui::dialogs
