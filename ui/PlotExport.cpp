// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/PlotExport.h"

#include <qcustomplot.h>

#include <QBuffer>
#include <QCoreApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTextStream>
#include <QToolButton>
#include <algorithm>
#include <memory>

#include "ui/CaptionLines.h"
#include "ui/DialogFolders.h"
#include "ui/SaveFile.h"

namespace ensemble::ui {
namespace {

/// Quotes a CSV field when it holds a separator, a quote or a line break (RFC 4180).
QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  return '"' + QString(text).replace("\"", "\"\"") + '"';
}

QString number(double value) { return QString::number(value, 'g', 10); }

/// The CSV's panel of a series: the one its plottable or plot names (kExportPanelProperty:
/// which run, where several are drawn alike), else its value axis's label.
QString panelOf(QCPAbstractPlottable* plottable) {
  for (const QObject* owner : {static_cast<const QObject*>(plottable), static_cast<const QObject*>(plottable->parentPlot())}) {
    const QVariant panel = owner->property(kExportPanelProperty);
    if (panel.isValid()) return panel.toString();
  }
  return plottable->valueAxis()->label();
}

void writeSeries(QTextStream& out, QCPAbstractPlottable* plottable) {
  const QString prefix = csvField(panelOf(plottable)) + ',' + csvField(plottable->name()) + ',';
  if (auto* graph = qobject_cast<QCPGraph*>(plottable)) {
    for (const QCPGraphData& point : *graph->data()) out << prefix << number(point.key) << ',' << number(point.value) << ",\n";
  } else if (auto* bars = qobject_cast<QCPBars*>(plottable)) {
    for (const QCPBarsData& bar : *bars->data()) out << prefix << number(bar.key) << ',' << number(bar.value) << ",\n";
  } else if (auto* map = qobject_cast<QCPColorMap*>(plottable)) {
    QCPColorMapData* cells = map->data();
    for (int x = 0; x < cells->keySize(); ++x) {
      for (int y = 0; y < cells->valueSize(); ++y) out << prefix << x << ',' << y << ',' << number(cells->cell(x, y)) << '\n';
    }
  }
}

/// True when a named series of `plot` has a point (a bar, a cell) to export.
bool hasData(QCustomPlot* plot) {
  for (int i = 0; i < plot->plottableCount(); ++i) {
    QCPAbstractPlottable* plottable = plot->plottable(i);
    if (plottable->name().isEmpty()) continue;
    if (auto* map = qobject_cast<QCPColorMap*>(plottable)) {
      if (map->data()->keySize() > 0 && map->data()->valueSize() > 0) return true;
    } else if (plottable->interface1D() && plottable->interface1D()->dataCount() > 0) {
      return true;
    }
  }
  return false;
}

/// What an export of a plot with nothing drawn says, instead of writing an empty file.
QString nothingToExport() {
  return QObject::tr("This plot has nothing to export yet: select a run, or compute the page first.");
}

/// Adds a caption row under the plot for as long as it lives (an export). Its lines are
/// broken to fit `width`, the image's: a text element is as wide as its longest line, and
/// a longer one was centred past both edges.
class CaptionRow {
 public:
  CaptionRow(QCustomPlot* plot, const QString& caption, int width) : m_plot(plot) {
    if (caption.isEmpty() || !plot) return;
    QCPLayoutGrid* layout = plot->plotLayout();
    const int row = layout->rowCount();
    layout->insertRow(row);
    const QFont font(plot->font().family(), 8);
    constexpr int kSide = 10;  // px left and right of the lines
    // Measured in the screen's font metrics, 8 px to spare for a painter that rounds its
    // glyphs wider.
    const QStringList lines = captionLines(caption, font, width - 2 * kSide - 8);
    m_text = new QCPTextElement(plot, lines.join('\n'), font);
    m_text->setTextFlags(Qt::AlignLeft | Qt::AlignVCenter);  // a block of lines reads from one edge
    m_text->setMargins(QMargins(kSide, 2, kSide, 4));
    m_text->setTextColor(QColor(80, 80, 80));
    layout->addElement(row, 0, m_text);
    layout->setRowStretchFactor(row, 0.001);
  }
  ~CaptionRow() {
    if (!m_text) return;
    m_plot->plotLayout()->remove(m_text);
    m_plot->plotLayout()->simplify();
    m_plot->replot();
  }
  CaptionRow(const CaptionRow&) = delete;
  CaptionRow& operator=(const CaptionRow&) = delete;

 private:
  QCustomPlot* m_plot;
  QCPTextElement* m_text = nullptr;
};

/// For as long as an image export lasts, the text elements of `plots` that name an export
/// text (kExportTextProperty) show it.
class ExportTexts {
 public:
  explicit ExportTexts(const QList<QCustomPlot*>& plots) {
    for (QCustomPlot* plot : plots) {
      for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
        auto* text = qobject_cast<QCPTextElement*>(element);
        const QVariant exported = text ? text->property(kExportTextProperty) : QVariant();
        if (!exported.isValid()) continue;
        m_shown.append({text, text->text()});
        text->setText(exported.toString());
      }
    }
  }
  ~ExportTexts() {
    for (const auto& [text, shown] : m_shown) {
      text->setText(shown);
      text->parentPlot()->replot();
    }
  }
  ExportTexts(const ExportTexts&) = delete;
  ExportTexts& operator=(const ExportTexts&) = delete;

 private:
  QList<QPair<QCPTextElement*, QString>> m_shown;
};

}  // namespace

QString plotExportFilter() {
  return QObject::tr("PNG image (*.png);;PDF document (*.pdf);;SVG image (*.svg);;Data as CSV (*.csv)");
}

QString exportPlot(QCustomPlot* plot, const QString& path, const QString& caption) {
  return exportPlots({plot}, path, caption);
}

QString exportPlots(const QList<QCustomPlot*>& plots, const QString& path, const QString& caption) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "csv") return exportPlotData(plots, path);
  if (suffix != "png" && suffix != "pdf" && suffix != "svg") {
    return QObject::tr("unknown format '%1': save as .png, .pdf, .svg or .csv").arg(suffix);
  }
  // Left to right, each at its shown width but at least 640 px (a page shows two runs'
  // matrices narrow beside its gallery), all as tall as the tallest.
  QList<int> widths;
  int width = 0, height = 420;
  for (QCustomPlot* plot : plots) {
    widths << std::max(plot->width(), 640);
    width += widths.back();
    height = std::max(height, plot->height());
  }
  const ExportTexts exportTexts(plots);
  const CaptionRow captionRow(plots.size() == 1 ? plots.front() : nullptr, caption, width);
  if (suffix == "png") {
    // Twice the pixels, marked 96 dpi (what QCustomPlot::savePng writes).
    QImage image(width * 2, height * 2, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    for (int i = 0, left = 0; i < plots.size(); left += widths[i], ++i) {
      painter.drawPixmap(left * 2, 0, plots[i]->toPixmap(widths[i], height, 2.0));
    }
    painter.end();
    image.setDotsPerMeterX(qRound(96 / 0.0254));
    image.setDotsPerMeterY(qRound(96 / 0.0254));
    return savePng(path, image);
  }
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  std::unique_ptr<QPaintDevice> device;
  if (suffix == "pdf") {
    auto pdf = std::make_unique<QPdfWriter>(&buffer);
    pdf->setTitle(plots.front()->objectName());
    pdf->setCreator(QCoreApplication::applicationName());
    pdf->setResolution(96);  // one point of the page per pixel of the plot
    pdf->setPageLayout(QPageLayout(QPageSize(QSizeF(width * 72.0 / 96, height * 72.0 / 96), QPageSize::Point,
                                             QString(), QPageSize::ExactMatch),
                                   QPageLayout::Portrait, QMarginsF()));
    device = std::move(pdf);
  } else {
    auto svg = std::make_unique<QSvgGenerator>();
    svg->setOutputDevice(&buffer);
    svg->setSize(QSize(width, height));
    svg->setViewBox(QRect(0, 0, width, height));
    svg->setTitle(plots.front()->objectName());
    device = std::move(svg);
  }
  QCPPainter painter;
  if (!painter.begin(device.get())) return QObject::tr("could not draw %1").arg(path);
  painter.setMode(QCPPainter::pmVectorized);
  for (int i = 0, left = 0; i < plots.size(); left += widths[i], ++i) {
    painter.save();
    painter.translate(left, 0);
    plots[i]->toPainter(&painter, widths[i], height);
    painter.restore();
  }
  painter.end();
  device.reset();  // a PDF is finished when its writer goes
  return saveFile(path, bytes);
}

QString exportPlotData(QCustomPlot* plot, const QString& path) { return exportPlotData(QList<QCustomPlot*>{plot}, path); }

QString exportPlotData(const QList<QCustomPlot*>& plots, const QString& path) {
  // A header alone, said to be saved, had looked like a result.
  if (std::none_of(plots.begin(), plots.end(), hasData)) return nothingToExport();
  QString text;
  QTextStream out(&text);
  out << "panel,series,x,y,z\n";
  for (QCustomPlot* plot : plots) {
    for (int i = 0; i < plot->plottableCount(); ++i) {
      QCPAbstractPlottable* plottable = plot->plottable(i);
      if (!plottable->name().isEmpty()) writeSeries(out, plottable);  // unnamed ones are drawing aids
    }
  }
  out.flush();
  return saveFile(path, text.toUtf8());
}

QToolButton* makePlotExportButton(QCustomPlot* plot, const QString& fileBaseName, QWidget* dialogParent,
                                  std::function<void(const QString&, const QString&)> report) {
  return makePlotsExportButton([plot] { return QList<QCustomPlot*>{plot}; }, fileBaseName, dialogParent, std::move(report));
}

QToolButton* makePlotsExportButton(std::function<QList<QCustomPlot*>()> plots, const QString& fileBaseName,
                                   QWidget* dialogParent, std::function<void(const QString&, const QString&)> report) {
  auto* button = new QToolButton;
  button->setIcon(QIcon::fromTheme("document-save-as", QIcon(":/icons/export.svg")));
  button->setText(QObject::tr("Export…"));
  button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  button->setToolTip(QObject::tr("Save this plot as PNG, PDF or SVG, or its data as CSV"));
  QObject::connect(button, &QToolButton::clicked, button, [=] {
    const QList<QCustomPlot*> shown = plots();
    if (std::none_of(shown.begin(), shown.end(), hasData)) return report(nothingToExport(), QString());  // before asking where
    const QString path = dialogs::saveFileName(dialogParent, QObject::tr("Export plot"), fileBaseName + ".png", plotExportFilter());
    if (!path.isEmpty()) report(exportPlots(shown, path), path);
  });
  return button;
}

}  // namespace ensemble::ui
