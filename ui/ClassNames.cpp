// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ClassNames.h"

#include <QDir>
#include <QFileInfo>

namespace ensemble::ui {
namespace {

/// Zalando's labels (fashion-mnist README), shortened to fit under a thumbnail.
const char* const kFashionMnist[] = {"T-shirt", "Trouser", "Pullover", "Dress", "Coat",
                                     "Sandal",  "Shirt",   "Sneaker",  "Bag",   "Boot"};

bool isFashionMnist(const QString& dataset) {
  if (dataset == "fashion-mnist") return true;
  // The package's folder, or a copy of it, given as a path.
  return QFileInfo(dataset).isDir() && QDir(dataset).dirName().contains("fashion", Qt::CaseInsensitive);
}

}  // namespace

QString className(const QString& dataset, int64_t label) {
  if (label >= 0 && label < 10 && isFashionMnist(dataset)) return kFashionMnist[label];
  return QString::number(label);
}

}  // namespace ensemble::ui
