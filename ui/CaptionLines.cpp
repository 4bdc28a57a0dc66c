// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/CaptionLines.h"

#include <QFontMetricsF>
#include <QTextLayout>

namespace ensemble::ui {
namespace {

const QString kSeparator = QStringLiteral(" · ");

/// At spaces, or anywhere inside a word wider than `width` (a long folder name).
QStringList wrapWords(const QString& text, const QFont& font, double width) {
  QTextLayout layout(text, font);
  QTextOption option;
  option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  layout.setTextOption(option);
  QStringList lines;
  layout.beginLayout();
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(width);
    lines << text.mid(line.textStart(), line.textLength()).trimmed();
  }
  layout.endLayout();
  return lines;
}

QStringList wrapParagraph(const QString& paragraph, const QFont& font, double width) {
  const QFontMetricsF metrics(font);
  QStringList lines;
  QString line;
  for (const QString& part : paragraph.split(kSeparator)) {
    const QString longer = line.isEmpty() ? part : line + kSeparator + part;
    // The " ·" a broken line ends in counts: it is drawn too.
    if (line.isEmpty() || metrics.horizontalAdvance(longer + " ·") <= width) {
      line = longer;
      continue;
    }
    lines << line + " ·";
    line = part;
  }
  lines << line;
  QStringList fitted;
  for (const QString& candidate : lines) {
    if (metrics.horizontalAdvance(candidate) <= width) fitted << candidate;
    else fitted << wrapWords(candidate, font, width);
  }
  return fitted;
}

}  // namespace

QStringList captionLines(const QString& text, const QFont& font, double width) {
  QStringList lines;
  for (const QString& paragraph : text.split('\n')) lines << wrapParagraph(paragraph, font, width);
  return lines;
}

}  // namespace ensemble::ui
