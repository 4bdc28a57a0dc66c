// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/PlotLegend.h"

#include <QCoreApplication>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <numeric>

namespace ensemble::ui {
namespace {

constexpr int kSwatchWidth = 28;  // QCPLegend's icon width, less its margins
constexpr int kSwatchHeight = 10;
constexpr int kTextGap = 6;
constexpr int kSpacing = 20;  // between entries, and between blocks
constexpr int kMargin = 4;
constexpr int kMostColumns = 8;

}  // namespace

PlotLegend::PlotLegend(QWidget* parent) : QWidget(parent), m_scroll(new QScrollBar(Qt::Vertical, this)) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  m_scroll->hide();
  connect(m_scroll, &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
  setCursor(Qt::PointingHandCursor);
  setVisible(false);
}

void PlotLegend::setEntries(const QVector<LegendEntry>& entries) {
  m_entries = entries;
  measure();
  m_blockStarts.clear();
  for (int i = 0; i < m_entries.size(); ++i) {
    if (i == 0 || m_entries[i].block != m_entries[i - 1].block) m_blockStarts.push_back(i);
  }
  setVisible(!m_entries.isEmpty());
  updateGeometry();
  updateScrollBar();
  update();
}

int PlotLegend::entryWidth(int index) const { return m_widths[index]; }

void PlotLegend::measure() {
  m_widths.resize(m_entries.size());
  // Two pixels over the text's advance: elidedText cut names given exactly their advance.
  for (int i = 0; i < m_entries.size(); ++i) {
    m_widths[i] = kSwatchWidth + kTextGap + fontMetrics().horizontalAdvance(m_entries[i].name) + 2;
  }
}

void PlotLegend::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::FontChange) return;
  measure();
  updateGeometry();
}

int PlotLegend::rowHeight() const { return std::max(fontMetrics().height(), kSwatchHeight) + 4; }

PlotLegend::Layout PlotLegend::arrange(const QVector<int>& blockStarts, int columns, int available) const {
  const int blocks = int(blockStarts.size());
  const auto blockEnd = [&](int b) { return b + 1 < blocks ? blockStarts[b + 1] : int(m_entries.size()); };
  int places = 0;
  for (int b = 0; b < blocks; ++b) places = std::max(places, blockEnd(b) - blockStarts[b]);
  // Each place in a column of blocks (a run's first entry, its second) is as wide as its widest entry.
  QVector<QVector<int>> widths(columns, QVector<int>(places, 0));
  for (int b = 0; b < blocks; ++b) {
    for (int i = blockStarts[b]; i < blockEnd(b); ++i) {
      int& width = widths[b % columns][i - blockStarts[b]];
      width = std::max(width, entryWidth(i));
    }
  }
  QVector<QVector<int>> x(columns, QVector<int>(places, 0));
  int right = 0;  // where the widest row's last entry ends
  int next = kMargin;
  for (int c = 0; c < columns; ++c) {
    for (int s = 0; s < places; ++s) {
      x[c][s] = next;
      if (widths[c][s] > 0) {
        right = next + widths[c][s];
        next = right + kSpacing;
      }
    }
  }
  Layout layout;
  layout.columns = columns;
  layout.rows = (blocks + columns - 1) / columns;
  layout.rects.resize(m_entries.size());
  for (int b = 0; b < blocks; ++b) {
    for (int i = blockStarts[b]; i < blockEnd(b); ++i) {
      const int left = x[b % columns][i - blockStarts[b]];
      // One entry a row and still too wide: the name is cut ("…") at the legend's edge.
      layout.rects[i] = QRect(left, kMargin + b / columns * rowHeight(),
                              std::max(0, std::min(entryWidth(i), kMargin + available - left)), rowHeight());
    }
  }
  layout.fits = right <= kMargin + available;
  return layout;
}

PlotLegend::Layout PlotLegend::layoutFor(int width) const {
  const auto fitting = [this](int available) {
    for (int columns = std::min(int(m_blockStarts.size()), kMostColumns); columns >= 1; --columns) {
      Layout layout = arrange(m_blockStarts, columns, available);
      if (layout.fits) return layout;
    }
    // Not one block fits a row: one entry a row, the blocks split.
    QVector<int> eachEntry(m_entries.size());
    std::iota(eachEntry.begin(), eachEntry.end(), 0);
    return arrange(eachEntry, 1, available);
  };
  Layout layout = fitting(width - 2 * kMargin);
  if (layout.rows > kMostRows) {
    layout = fitting(width - 2 * kMargin - style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this));
    layout.scrolls = true;
  }
  return layout;
}

int PlotLegend::heightForWidth(int width) const {
  if (m_entries.isEmpty()) return 0;
  return std::min(layoutFor(width).rows, kMostRows) * rowHeight() + 2 * kMargin;
}

QSize PlotLegend::sizeHint() const { return {kMargin * 2 + 200, heightForWidth(width() > 0 ? width() : 640)}; }

QSize PlotLegend::minimumSizeHint() const { return {kMargin * 2 + kSwatchWidth, heightForWidth(width())}; }

QRect PlotLegend::entryRect(int index) const {
  return layoutFor(width()).rects.value(index).translated(0, -m_scroll->value());
}

void PlotLegend::updateScrollBar() {
  const Layout layout = layoutFor(width());
  m_scroll->setVisible(layout.scrolls);
  const int extent = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
  m_scroll->setGeometry(width() - extent, 0, extent, height());
  m_scroll->setRange(0, layout.scrolls ? (layout.rows - kMostRows) * rowHeight() : 0);
  m_scroll->setSingleStep(rowHeight());
  m_scroll->setPageStep(kMostRows * rowHeight());
}

void PlotLegend::setHiddenBlocks(const QSet<int>& blocks) {
  m_hidden = blocks;
  update();
}

int PlotLegend::entryAt(const QPoint& position) const {
  for (int i = 0; i < m_entries.size(); ++i) {
    if (entryRect(i).contains(position)) return i;
  }
  return -1;
}

void PlotLegend::mouseReleaseEvent(QMouseEvent* event) {
  const int entry = event->button() == Qt::LeftButton ? entryAt(event->position().toPoint()) : -1;
  if (entry < 0 || m_entries[entry].block < 0) return QWidget::mouseReleaseEvent(event);
  emit blockClicked(m_entries[entry].block);
}

void PlotLegend::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateScrollBar();
  // Its height is fixed at its width's rows: a layout that gives it another width must ask
  // again (narrowed, it had kept one row and cut off the second run's entry).
  if (heightForWidth(event->size().width()) != heightForWidth(event->oldSize().width())) updateGeometry();
}

void PlotLegend::wheelEvent(QWheelEvent* event) {
  if (!m_scroll->isVisible()) return QWidget::wheelEvent(event);
  QCoreApplication::sendEvent(m_scroll, event);
}

void PlotLegend::drawSwatch(QPainter& painter, const QRect& rect, const LegendEntry& entry) const {
  const int middle = rect.center().y();
  painter.setPen(entry.pen);
  switch (entry.kind) {
    case LegendEntry::Kind::Line:
      painter.drawLine(rect.left(), middle, rect.right(), middle);
      break;
    case LegendEntry::Kind::Band:
      painter.setBrush(entry.brush);
      painter.drawRect(rect);
      painter.setBrush(Qt::NoBrush);
      break;
    case LegendEntry::Kind::ErrorBar: {  // a whiskered bar, as a one-point band is drawn
      const int centre = rect.center().x();
      painter.drawLine(centre, rect.top(), centre, rect.bottom());
      painter.drawLine(centre - 4, rect.top(), centre + 4, rect.top());
      painter.drawLine(centre - 4, rect.bottom(), centre + 4, rect.bottom());
      break;
    }
  }
}

void PlotLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setClipRect(rect().adjusted(0, kMargin / 2, 0, -kMargin / 2));
  const Layout layout = layoutFor(width());
  for (int i = 0; i < m_entries.size(); ++i) {
    const QRect entry = layout.rects[i].translated(0, -m_scroll->value());
    if (!entry.intersects(rect())) continue;
    const bool hidden = m_hidden.contains(m_entries[i].block);
    painter.setOpacity(hidden ? 0.45 : 1.0);  // a hidden block's entries fade
    drawSwatch(painter, QRect(entry.left(), entry.center().y() - kSwatchHeight / 2, kSwatchWidth, kSwatchHeight), m_entries[i]);
    const QRect text = entry.adjusted(kSwatchWidth + kTextGap, 0, 0, 0);
    const bool whole = entry.width() >= entryWidth(i);
    painter.setPen(palette().color(hidden ? QPalette::Disabled : QPalette::Active, QPalette::WindowText));
    painter.drawText(whole ? text.adjusted(0, 0, kSpacing / 2, 0) : text, Qt::AlignLeft | Qt::AlignVCenter,
                     whole ? m_entries[i].name : fontMetrics().elidedText(m_entries[i].name, Qt::ElideRight, text.width()));
  }
}

bool PlotLegend::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  const auto* help = static_cast<QHelpEvent*>(event);
  const int entry = entryAt(help->pos());
  if (entry < 0) {
    QToolTip::hideText();
    event->ignore();
    return true;
  }
  // The whole name where it is cut, and what a click does.
  const QString name = entryRect(entry).width() < entryWidth(entry) ? m_entries[entry].name + "\n" : QString();
  QToolTip::showText(help->globalPos(),
                     name + (m_hidden.contains(m_entries[entry].block) ? tr("Click to show these lines again")
                                                                       : tr("Click to hide these lines on every plot")),
                     this);
  return true;
}

}  // namespace ensemble::ui
