// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A label for a message that quotes what the user typed or chose (a path, a run's name, a
// list of levels): it wraps at spaces and, inside a word longer than its width (a path),
// anywhere, and it asks its layout for no width at all, so a long message takes more lines,
// never more width. (A plain QLabel asks for its longest word: a typed path made the main
// window 62 px wider than the screen's 1400 and pushed the Export… button off its edge.)
// Its whole text is its tooltip too.
#include <QLabel>

class QTextLayout;

namespace ensemble::ui {

class MessageLabel final : public QLabel {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(MessageLabel)

 public:
  explicit MessageLabel(QWidget* parent = nullptr);

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  /// Selectable text is drawn by QLabel's text control, which wraps at spaces only: such a
  /// label keeps QLabel's drawing (a long word is cut at the edge, whole in the tooltip).
  bool drawsItself() const;
  /// The text in lines of `width` px; returns their height.
  int layOut(QTextLayout& layout, int width) const;
  int framing() const;  ///< the pixels around the text, both sides together
};

}  // namespace ensemble::ui
