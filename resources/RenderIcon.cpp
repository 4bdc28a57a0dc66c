// SPDX-License-Identifier: GPL-3.0-or-later
// Build-time tool: renders the SVG application icon to the PNG sizes desktops ask for.
// Usage: render-icon INPUT.svg OUTPUT.png SIZE
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: render-icon INPUT.svg OUTPUT.png SIZE\n");
    return 2;
  }
  QGuiApplication app(argc, argv);
  QSvgRenderer renderer(QString::fromLocal8Bit(argv[1]));
  const int size = QString(argv[3]).toInt();
  if (!renderer.isValid() || size <= 0) {
    std::fprintf(stderr, "render-icon: cannot render %s at size %s\n", argv[1], argv[3]);
    return 1;
  }
  QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  renderer.render(&painter);
  painter.end();
  return image.save(QString::fromLocal8Bit(argv[2]), "PNG") ? 0 : 1;
}
