// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A label that keeps to one line: what does not fit ends in "…", and the whole text is its
// tooltip. For notes beside a field, whose full text can be longer than the panel is wide.
#include <QLabel>

namespace ensemble::ui {

class ElidedLabel final : public QLabel {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(ElidedLabel)

 public:
  explicit ElidedLabel(const QString& text, QWidget* parent = nullptr);

  /// The text before eliding.
  QString fullText() const { return m_fullText; }
  /// Shows `text`, elided to the label's width; the whole of it is the tooltip.
  void setFullText(const QString& text);

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void elide();

  QString m_fullText;
};

}  // namespace ensemble::ui
