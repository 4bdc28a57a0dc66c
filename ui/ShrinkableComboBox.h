// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A choice box that may be narrower than its longest choice, which it then ends in "…".
// A QComboBox is at least as wide as its widest item, so one long choice ("auto (stacked
// on a GPU, separate on the CPU)") set the least width of its whole panel, and of the
// window with it; and made narrower, a QComboBox cuts its text off mid-letter.
#include <QComboBox>

namespace ensemble::ui {

class ShrinkableComboBox final : public QComboBox {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ShrinkableComboBox)

 public:
  /// As narrow as about `characters` characters at the least, as wide as its widest choice
  /// where there is room; its open list shows every choice whole.
  explicit ShrinkableComboBox(int characters = 12, QWidget* parent = nullptr);

 protected:
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace ensemble::ui
