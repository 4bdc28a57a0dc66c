// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A legend in a row of its own under a plot's axes, there only while it has entries.
// QCPLayoutGrid makes a column no wider than the narrowest largest size of its elements, and
// an empty legend's largest size is its margins: left in the layout, it squeezed the axes
// above it to their tick labels' width (every plot of a window with no run selected).
class QCustomPlot;
class QCPLegend;

namespace ensemble::ui {

/// Puts `legend` in cell (`row`, `column`) of `plot`'s layout, shown, while it has entries
/// and is `wanted`, the row taking no more height than the legend needs; otherwise takes it
/// out of the layout, hidden. Out of the layout the legend still belongs to the plot (a
/// QObject child) and still takes entries.
void placeLegendRow(QCustomPlot* plot, QCPLegend* legend, int row, int column = 0, bool wanted = true);

}  // namespace ensemble::ui
