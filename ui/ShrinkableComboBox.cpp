// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ShrinkableComboBox.h"

#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace ensemble::ui {

ShrinkableComboBox::ShrinkableComboBox(int characters, QWidget* parent) : QComboBox(parent) {
  // With a minimum contents length, QComboBox's least width is that many characters, while
  // its preferred width stays its widest choice's: where there is room it shows them whole.
  setMinimumContentsLength(characters);
}

void ShrinkableComboBox::paintEvent(QPaintEvent* event) {
  if (isEditable()) return QComboBox::paintEvent(event);  // its line edit scrolls the text
  // As QComboBox paints itself, with the text elided to the room it has.
  QStylePainter painter(this);
  QStyleOptionComboBox option;
  initStyleOption(&option);
  painter.drawComplexControl(QStyle::CC_ComboBox, option);
  QRect room = style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
  if (!option.currentIcon.isNull()) room.setLeft(room.left() + option.iconSize.width() + 4);
  option.currentText = fontMetrics().elidedText(option.currentText, Qt::ElideRight, room.width() - 2);
  painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

}  // namespace ensemble::ui
