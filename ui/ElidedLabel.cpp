// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ElidedLabel.h"

#include <QFontMetrics>
#include <QResizeEvent>

namespace ensemble::ui {

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QLabel(parent), m_fullText(text) {
  setWordWrap(false);
  setToolTip(text);
  // As wide as the layout gives it, never wider: the text adapts, not the panel.
  setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  elide();
}

void ElidedLabel::setFullText(const QString& text) {
  m_fullText = text;
  setToolTip(text);
  elide();
  updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const { return {0, QLabel::minimumSizeHint().height()}; }

QSize ElidedLabel::sizeHint() const { return {fontMetrics().horizontalAdvance(m_fullText), QLabel::sizeHint().height()}; }

void ElidedLabel::resizeEvent(QResizeEvent* event) {
  QLabel::resizeEvent(event);
  elide();
}

void ElidedLabel::elide() {
  const int width = contentsRect().width();
  setText(width > 0 ? fontMetrics().elidedText(m_fullText, Qt::ElideRight, width) : m_fullText);
}

}  // namespace ensemble::ui
