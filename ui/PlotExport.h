// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Saves a QCustomPlot as PNG, PDF or SVG with its title, axis labels and legend as shown,
// or its data as CSV: the format is chosen by the file's suffix.
#include <QList>
#include <QString>
#include <functional>

class QCustomPlot;
class QToolButton;
class QWidget;

namespace ensemble::ui {

/// The file-dialog filter for the formats exportPlot writes.
QString plotExportFilter();

/// Returns an empty string on success, otherwise what went wrong. A non-empty `caption`
/// (say the runs' setup) is drawn under the plot in the image files, not on screen. Every
/// format is made in memory and written whole or not at all (ui/SaveFile.h).
QString exportPlot(QCustomPlot* plot, const QString& path, const QString& caption = {});

/// Several plots in one file, as they stand side by side (two runs' confusion matrices):
/// images drawn left to right at their shown widths (640 px at the least), CSV rows of each
/// in turn. A caption
/// is drawn under a plot alone only.
QString exportPlots(const QList<QCustomPlot*>& plots, const QString& path, const QString& caption = {});

/// Set on a plot's text element (a title), the text an image export draws in its place: the
/// window's hint ("click a cell") has no place in a figure.
inline constexpr const char* kExportTextProperty = "exportText";

/// Set on a plottable or a plot, names the CSV's `panel` of its series (which run, where two
/// runs' panels are drawn alike).
inline constexpr const char* kExportPanelProperty = "exportPanel";

/// The data behind every named series of `plot` as CSV, one row per point:
///   panel,series,x,y,z
/// `panel` is what kExportPanelProperty names, else the label of the series' value axis
/// (plots with several panels), `z` the
/// cell value of a colour map (x, y: its column and row) and empty for lines and bars.
/// Written whole or not at all; returns an error message or an empty string.
QString exportPlotData(QCustomPlot* plot, const QString& path);
QString exportPlotData(const QList<QCustomPlot*>& plots, const QString& path);

/// An "Export…" button that asks where and saves `plot` (any format above), reporting
/// through `report(error, path)`.
QToolButton* makePlotExportButton(QCustomPlot* plot, const QString& fileBaseName, QWidget* dialogParent,
                                  std::function<void(const QString& error, const QString& path)> report);
/// The same for the plots `plots` gives when clicked (those shown then), in one file.
QToolButton* makePlotsExportButton(std::function<QList<QCustomPlot*>()> plots, const QString& fileBaseName,
                                   QWidget* dialogParent,
                                   std::function<void(const QString& error, const QString& path)> report);

}  // namespace ensemble::ui
