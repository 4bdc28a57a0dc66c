// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A grey line of text in the middle of an empty plot that says why it is empty and what to
// do: bare axes had left a person guessing whether anything was wrong.
#include <qcustomplot.h>

namespace ensemble::ui {

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
  return hint;
}

/// Shows `text` (or hides the hint when it is empty).
inline void showPlotHint(QCPItemText* hint, const QString& text) {
  hint->setText(text);
  hint->setVisible(!text.isEmpty());
}

}  // namespace ensemble::ui
