// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One colour per compared run, the same on every plot of the window: the n-th selected run
// is drawn in runColor(n) on the training curves, the shift plots and the reliability
// diagram alike (they had different palettes, so a run changed colour between them).
#include <QColor>

#include <iterator>

namespace ensemble::ui {

inline QColor runColor(int index) {
  static const QColor colors[] = {QColor(31, 119, 180), QColor(214, 39, 40),   QColor(44, 160, 44),
                                  QColor(148, 103, 189), QColor(255, 127, 14), QColor(23, 190, 207)};
  const int count = int(std::size(colors));
  return colors[((index % count) + count) % count];
}

}  // namespace ensemble::ui
