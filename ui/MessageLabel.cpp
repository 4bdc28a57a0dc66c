// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/MessageLabel.h"

#include <QHelpEvent>
#include <QPainter>
#include <QTextLayout>
#include <QToolTip>
#include <cmath>

namespace ensemble::ui {

MessageLabel::MessageLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setWordWrap(true);
  // No width asked for: the layout's width is what it gets, and its height follows.
  QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

bool MessageLabel::drawsItself() const { return !(textInteractionFlags() & Qt::TextSelectableByMouse); }

int MessageLabel::layOut(QTextLayout& layout, int width) const {
  // Qt::TextWrapAnywhere (QPainter's flag) breaks every line anywhere ("g|ot"): the text
  // layout's own mode keeps to word boundaries where a word fits.
  QTextOption option(alignment());
  option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  layout.setText(QString(text()).replace('\n', QChar::LineSeparator));
  layout.setFont(font());
  layout.setTextOption(option);
  layout.beginLayout();
  qreal height = 0;
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(std::max(1, width));
    line.setPosition(QPointF(0, height));
    height += line.height();
  }
  layout.endLayout();
  return int(std::ceil(height));
}

int MessageLabel::framing() const { return 2 * (frameWidth() + margin()); }

QSize MessageLabel::minimumSizeHint() const {
  return {0, text().isEmpty() ? 0 : fontMetrics().height() + framing()};
}

QSize MessageLabel::sizeHint() const {
  if (!drawsItself()) return QLabel::sizeHint();
  // As wide as its longest line unbroken (the layout may give it less: it then wraps).
  const int width = fontMetrics().boundingRect(QRect(0, 0, QWIDGETSIZE_MAX, QWIDGETSIZE_MAX), 0, text()).width();
  return {width + framing(), heightForWidth(width + framing())};
}

int MessageLabel::heightForWidth(int width) const {
  if (!drawsItself()) return QLabel::heightForWidth(width);
  if (text().isEmpty()) return 0;
  QTextLayout layout;
  return layOut(layout, width - framing()) + framing();
}

bool MessageLabel::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && toolTip().isEmpty() && !text().isEmpty()) {
    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), text(), this);
    return true;
  }
  return QLabel::event(event);
}

void MessageLabel::paintEvent(QPaintEvent* event) {
  if (!drawsItself()) return QLabel::paintEvent(event);
  QPainter painter(this);
  drawFrame(&painter);
  const QRect room = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  QTextLayout layout;
  const int height = layOut(layout, room.width());
  int top = room.top();  // the text block placed as the alignment says, in a taller label
  if (alignment() & Qt::AlignVCenter) top += (room.height() - height) / 2;
  else if (alignment() & Qt::AlignBottom) top += room.height() - height;
  painter.setPen(palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled, foregroundRole()));
  layout.draw(&painter, QPointF(room.left(), top));
}

}  // namespace ensemble::ui
