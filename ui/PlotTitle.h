// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A plot's title that breaks onto more lines where its column is narrower than its text.
// QCPTextElement asks for its whole text's width on one line, so a long title (a run's name
// in it) held its plot, and the window, at least that wide: the confusion matrix's title
// alone made the Uncertainty tab 394 px wide at the least, the two shift plots' 493 px.
#include <qcustomplot.h>

namespace ensemble::ui {

class PlotTitle final : public QCPTextElement {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(PlotTitle)

 public:
  /// Bold, at the plots' title size.
  PlotTitle(QCustomPlot* plot, const QString& text);

  /// The lines drawn in `width` pixels (CaptionLines.h: broken between words where it can).
  QStringList linesAt(double width) const;

 protected:
  void draw(QCPPainter* painter) override;
  QSize minimumOuterSizeHint() const override;
  QSize maximumOuterSizeHint() const override;
  void update(UpdatePhase phase) override;

 private:
  /// The height of the lines at the width the plot's layout last gave the title.
  int heightOfLines() const;

  mutable int m_linesAsked = 1;  // how many lines the height last asked for was for
  bool m_relayingOut = false;
};

}  // namespace ensemble::ui
