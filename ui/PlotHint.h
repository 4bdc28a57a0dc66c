// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A grey line of text in the middle of an empty plot that says why it is empty and what to
// do: bare axes had left a person guessing whether anything was wrong. Broken into lines
// that fit the plot, which a narrow window makes narrower than one line of it (it ran over
// the axis labels and off both edges).
#include <qcustomplot.h>

#include <algorithm>

#include "ui/CaptionLines.h"

namespace ensemble::ui {

/// The hint's whole text, as given to showPlotHint (its lines as drawn depend on the width).
inline QString plotHintText(const QCPItemText* hint) { return hint->property("wholeText").toString(); }

/// Breaks the hint's text into lines that fit `plot` as it is now laid out.
inline void fitPlotHint(QCPItemText* hint, QCustomPlot* plot) {
  constexpr int kAxesAndMargins = 90;  // the value axis's labels and a margin each side
  const double width = std::max(120, plot->viewport().width() - kAxesAndMargins);
  hint->setText(captionLines(plotHintText(hint), hint->font(), width).join('\n'));
}

/// Hidden until given a text; centred on `plot`'s first axis rect, over nothing drawn.
inline QCPItemText* addPlotHint(QCustomPlot* plot) {
  auto* hint = new QCPItemText(plot);
  hint->setObjectName("plotHint");
  hint->setClipToAxisRect(false);
  hint->position->setType(QCPItemPosition::ptAxisRectRatio);
  hint->position->setCoords(0.5, 0.5);
  hint->setColor(QColor(117, 117, 117));
  hint->setTextAlignment(Qt::AlignCenter);
  hint->setVisible(false);
  // Before each replot, where a resize has just set the plot's new size.
  QObject::connect(plot, &QCustomPlot::beforeReplot, hint, [hint, plot] {
    if (hint->visible()) fitPlotHint(hint, plot);
  });
  return hint;
}

/// Shows `text` (or hides the hint when it is empty).
inline void showPlotHint(QCPItemText* hint, const QString& text) {
  hint->setProperty("wholeText", text);
  hint->setVisible(!text.isEmpty());
  fitPlotHint(hint, hint->parentPlot());
}

}  // namespace ensemble::ui
