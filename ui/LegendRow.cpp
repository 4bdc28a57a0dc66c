// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/LegendRow.h"

#include <qcustomplot.h>

#include <algorithm>
#include <vector>

namespace ensemble::ui {

void placeLegendRow(QCustomPlot* plot, QCPLegend* legend, int row, int column, bool wanted) {
  const bool filled = wanted && legend->itemCount() > 0;
  legend->setVisible(filled);
  QCPLayoutGrid* layout = plot->plotLayout();
  const bool placed = layout->hasElement(row, column) && layout->element(row, column) == legend;
  if (filled && !placed) {
    if (layout->rowCount() <= row) layout->expandTo(row + 1, layout->columnCount());
    layout->addElement(row, column, legend);
    layout->setRowStretchFactor(row, 0.001);
  }
  if (!filled && placed) layout->take(legend);
}

namespace {

/// The width of `columns` columns of `widths`, filled across: each column as wide as its widest.
int widthInColumns(const std::vector<int>& widths, int columns, int spacing) {
  std::vector<int> column(std::size_t(columns), 0);
  for (std::size_t i = 0; i < widths.size(); ++i) {
    int& width = column[i % column.size()];
    width = std::max(width, widths[i]);
  }
  int total = spacing * (columns - 1);
  for (int width : column) total += width;
  return total;
}

}  // namespace

bool fitLegendToPlotWidth(QCustomPlot* plot, QCPLegend* legend) {
  legend->setMinimumSize(1, 0);  // 0 would mean "unset": the entries' width, held on the plot
  if (legend->itemCount() == 0) return false;
  std::vector<int> widths;
  for (int i = 0; i < legend->itemCount(); ++i) widths.push_back(legend->item(i)->minimumOuterSizeHint().width());
  const QMargins outer = plot->plotLayout()->margins();
  const QMargins own = legend->margins();
  const int available = plot->viewport().width() - outer.left() - outer.right() - own.left() - own.right();
  int columns = legend->itemCount();
  while (columns > 1 && widthInColumns(widths, columns, legend->columnSpacing()) > available) --columns;
  if (columns != legend->wrap() || legend->fillOrder() != QCPLegend::foColumnsFirst) {
    legend->setWrap(columns);
    legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // the entries placed again, `columns` a line
  }
  return widthInColumns(widths, 1, 0) <= available;
}

}  // namespace ensemble::ui
