// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SaveFile.h"

#include <QBuffer>
#include <QByteArray>
#include <QImage>
#include <QObject>

#include "core/io/AtomicFile.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {

QString saveFile(const QString& path, const QByteArray& bytes) {
  try {
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), std::size_t(bytes.size())));
    return {};
  } catch (const std::exception& e) {
    return inLabels(e.what());
  }
}

QString savePng(const QString& path, const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (image.isNull() || !image.save(&buffer, "PNG")) return QObject::tr("could not encode the image for %1").arg(path);
  return saveFile(path, bytes);
}

}  // namespace ensemble::ui
