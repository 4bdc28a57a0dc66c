// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The ensemble's confusion matrix as a heat map with the counts written in; clicking a
// cell asks for the images in it (the gallery filters to them).
#include <QWidget>
#include <memory>
#include <optional>

#include "ui/AnalysisResults.h"

class QCustomPlot;
class QCPColorMap;
class QCPItemRect;
class QCPTextElement;

namespace ensemble::ui {

class ConfusionMatrixPlot final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ConfusionMatrixPlot)

 public:
  explicit ConfusionMatrixPlot(QWidget* parent = nullptr);

  void showInspection(const std::shared_ptr<const Inspection>& inspection);
  /// The inspection shown; null when cleared.
  const Inspection* inspection() const { return m_inspection.get(); }
  /// Names whose matrix it is, in the run's colour, above the plot, with the hint "(click a
  /// cell)" in the window (not in an exported image).
  void setTitle(const QString& title, const QColor& color);
  /// No run: an empty plot.
  void clear();
  /// Outlines `cell` (the one whose images the gallery lists); none: no outline.
  void highlight(const std::optional<ConfusionCell>& cell);
  QCustomPlot* plot() const { return m_plot; }
  /// The cell under a point of the plot's widget, if any.
  std::optional<ConfusionCell> cellAt(const QPointF& position) const;

 signals:
  void cellClicked(const ensemble::ConfusionCell& cell);

 private:
  /// Shows the counts where the widest fits its cell at the plot's size now, hides them where not.
  void showCountsThatFit();

  QCustomPlot* m_plot;
  QCPTextElement* m_title;
  std::shared_ptr<const Inspection> m_inspection;
  QCPColorMap* m_map = nullptr;
  QCPItemRect* m_outline = nullptr;  ///< around the highlighted cell; owned by the plot
  int64_t m_classes = 0;
};

}  // namespace ensemble::ui
