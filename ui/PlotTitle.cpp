// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/PlotTitle.h"

#include <QApplication>
#include <QFontMetrics>
#include <algorithm>

#include "ui/CaptionLines.h"

namespace ensemble::ui {
namespace {

// Narrower than this, a title would be a column of word pieces: the plot's other parts
// (tick labels, axis label) need about as much anyway.
constexpr int kNarrowestWidth = 120;

}  // namespace

PlotTitle::PlotTitle(QCustomPlot* plot, const QString& text)
    : QCPTextElement(plot, text, QFont(QApplication::font().family(), 10, QFont::Bold)) {}

QStringList PlotTitle::linesAt(double width) const {
  return captionLines(mText, mainFont(), std::max(1.0, width));
}

void PlotTitle::draw(QCPPainter* painter) {
  painter->setFont(mainFont());
  painter->setPen(QPen(mainTextColor()));
  painter->drawText(mRect, Qt::AlignCenter, linesAt(mRect.width()).join('\n'), &mTextBoundingRect);
}

int PlotTitle::heightOfLines() const {
  const QFontMetrics metrics(mainFont());
  m_linesAsked = mRect.width() > 0 ? int(linesAt(mRect.width()).size()) : 1;
  return m_linesAsked * metrics.lineSpacing() - metrics.leading() + mMargins.top() + mMargins.bottom();
}

QSize PlotTitle::minimumOuterSizeHint() const {
  const QFontMetrics metrics(mainFont());
  const int oneLine = metrics.horizontalAdvance(mText) + mMargins.left() + mMargins.right();
  return {std::min(oneLine, kNarrowestWidth), heightOfLines()};
}

QSize PlotTitle::maximumOuterSizeHint() const { return {QWIDGETSIZE_MAX, heightOfLines()}; }

void PlotTitle::update(UpdatePhase phase) {
  QCPTextElement::update(phase);
  if (phase != upLayout || m_relayingOut) return;
  // The layout asked for the height (at the width it gave the title the time before) and
  // then set the width: where the new width takes another number of lines, lay the plot out
  // again now, before anything is drawn (the width does not depend on the height, so once
  // is enough).
  if (int(linesAt(mRect.width()).size()) != m_linesAsked) {
    m_relayingOut = true;
    mParentPlot->plotLayout()->update(upLayout);
    m_relayingOut = false;
  }
}

}  // namespace ensemble::ui
