#include "ui/PlotExport.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSvgGenerator>

namespace ensemble::ui {

QString exportPlot(QCustomPlot* plot, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const int width = std::max(plot->width(), 640), height = std::max(plot->height(), 420);
  bool ok = false;
  if (suffix == "png") {
    ok = plot->savePng(path, width, height, 2.0);
  } else if (suffix == "pdf") {
    ok = plot->savePdf(path, width, height);
  } else if (suffix == "svg") {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(QSize(width, height));
    generator.setViewBox(QRect(0, 0, width, height));
    generator.setTitle(plot->objectName());
    QCPPainter painter;
    ok = painter.begin(&generator);
    if (ok) {
      plot->toPainter(&painter, width, height);
      painter.end();
    }
  } else {
    return QObject::tr("unknown format '%1': save as .png, .pdf or .svg").arg(suffix);
  }
  return ok && QFileInfo(path).size() > 0 ? QString() : QObject::tr("could not write %1").arg(path);
}

}  // namespace ensemble::ui
