// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/LegendRow.h"

#include <qcustomplot.h>

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

}  // namespace ensemble::ui
