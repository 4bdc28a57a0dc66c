// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A row of controls that wraps onto the next line where the window is too narrow for it,
// instead of holding the window wide: one QHBoxLayout of a page's controls had made the
// whole window at least 1182 px wide, more than half a 1920-px screen and more than a
// 1024-px one. Items keep their preferred widths; a line's spare width goes to the items
// given a stretch, as in a QBoxLayout.
#include <QLayout>
#include <QVector>
#include <initializer_list>

namespace ensemble::ui {

class FlowLayout final : public QLayout {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(FlowLayout)

 public:
  explicit FlowLayout(QWidget* parent = nullptr);
  ~FlowLayout() override;

  /// `widget` after the items so far; a `stretch` above 0 takes that share of its line's
  /// spare width (and is laid out from its minimum width, so it gives way first).
  void addWidget(QWidget* widget, int stretch = 0);
  /// `pixels` more between the next item and the one before it, where both share a line.
  void addSpacing(int pixels);

  void addItem(QLayoutItem* item) override;
  int count() const override;
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;
  void invalidate() override;

 private:
  struct Entry {
    QLayoutItem* item = nullptr;
    int stretch = 0;
    int gapBefore = 0;  // from addSpacing, beyond the layout's spacing
  };

  /// Places the items in `rect` (only measures where `apply` is false); the height used.
  int arrange(const QRect& rect, bool apply) const;
  int horizontalGap() const;
  int verticalGap() const;

  QVector<Entry> m_entries;
  int m_pendingGap = 0;
  mutable int m_cachedWidth = -1;
  mutable int m_cachedHeight = 0;
};

/// `widgets` side by side in one item of a FlowLayout, so that a label never ends one line
/// and its field starts the next; the last one takes the group's spare width.
QWidget* sideBySide(std::initializer_list<QWidget*> widgets);

}  // namespace ensemble::ui
