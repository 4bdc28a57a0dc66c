// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One legend for the four live plots, in a row above them. The plots draw the same runs in
// the same colours, and each of them had carried its own copy of a comparison's legend
// under its axes: at 1400x900, three selected runs left the loss plots' tick labels
// overlapping, and five took about two thirds of every plot's height. Clicking an entry
// hides (or shows again) its block's lines on every plot.
#include <QBrush>
#include <QPen>
#include <QRect>
#include <QSet>
#include <QString>
#include <QVector>
#include <QWidget>

class QScrollBar;

namespace ensemble::ui {

/// What a legend entry shows beside its name.
struct LegendEntry {
  enum class Kind { Line, Band, ErrorBar };
  QString name;
  QPen pen;
  QBrush brush;  ///< a band's fill
  Kind kind = Kind::Line;
  /// Consecutive entries of one block (a run's bold line and its members' entry, a group's
  /// mean and its band) share a row, and the blocks line up in columns.
  int block = 0;
};

class PlotLegend final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(PlotLegend)

 public:
  /// Rows shown at most; more scroll (twenty compared runs would have taken the plots' place).
  static constexpr int kMostRows = 4;

  explicit PlotLegend(QWidget* parent = nullptr);

  /// Shows `entries` in order, block by block across, then down (one entry a row where not
  /// even one block fits). Hidden while empty.
  void setEntries(const QVector<LegendEntry>& entries);
  const QVector<LegendEntry>& entries() const { return m_entries; }
  /// Blocks side by side, and rows of them, at the legend's current width.
  int columns() const { return layoutFor(width()).columns; }
  int rows() const { return layoutFor(width()).rows; }
  /// Where entry `index` is drawn, swatch and name, as scrolled now (tests: nothing is cut).
  QRect entryRect(int index) const;
  /// The width entry `index` needs to show its whole name.
  int entryWidth(int index) const;
  QScrollBar* scrollBar() const { return m_scroll; }
  /// Blocks whose lines are hidden: their entries are drawn faded.
  void setHiddenBlocks(const QSet<int>& blocks);
  const QSet<int>& hiddenBlocks() const { return m_hidden; }

 signals:
  /// An entry of `block` was clicked: its lines should be hidden, or shown again.
  void blockClicked(int block);

 public:
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // a tooltip: a cut name's whole text, what a click does
  void changeEvent(QEvent* event) override;

 private:
  struct Layout {
    int columns = 1;
    int rows = 0;
    bool fits = true;       ///< every row within the width
    bool scrolls = false;   ///< more than kMostRows rows: a scroll bar takes the right edge
    QVector<QRect> rects;   ///< each entry's, unscrolled
  };
  Layout layoutFor(int width) const;
  /// The layout of the blocks that start at `blockStarts`, `columns` of them a row, in
  /// `available` pixels.
  Layout arrange(const QVector<int>& blockStarts, int columns, int available) const;
  int rowHeight() const;
  void updateScrollBar();
  void drawSwatch(QPainter& painter, const QRect& rect, const LegendEntry& entry) const;

  QVector<LegendEntry> m_entries;
  QVector<int> m_blockStarts;  ///< each block's first entry
  QSet<int> m_hidden;
  /// entryWidth's, measured once per entries or font: layouts ask heightForWidth often, and
  /// each asks for every entry's width up to 16 times.
  QVector<int> m_widths;
  void measure();
  /// The entry under `position`, or -1.
  int entryAt(const QPoint& position) const;
  QScrollBar* m_scroll;
};

}  // namespace ensemble::ui
