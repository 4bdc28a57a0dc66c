#pragma once
// Saves a QCustomPlot as PNG, PDF or SVG (chosen by the file's suffix), with its title,
// axis labels and legend as shown.
#include <QString>

class QCustomPlot;

namespace ensemble::ui {

/// Returns an empty string on success, otherwise what went wrong.
QString exportPlot(QCustomPlot* plot, const QString& path);

}  // namespace ensemble::ui
