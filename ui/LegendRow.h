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

/// Lays `legend`'s entries across `plot`'s width (foColumnsFirst), as many to a line as fit,
/// and says whether its widest entry fits at all. The legend is given no least width of its
/// own, so it never holds the plot wider than the rest of it needs: where it does not fit,
/// leave it out (placeLegendRow's `wanted`). Call it before the plot is laid out (its
/// beforeReplot), when its viewport is the size it was resized to. (Two run names side by
/// side held the Ensemble tab's size plot 421 px wide, and at 960 px the member table beside
/// it was left 101 px.)
bool fitLegendToPlotWidth(QCustomPlot* plot, QCPLegend* legend);

}  // namespace ensemble::ui
