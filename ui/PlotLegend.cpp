// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/PlotLegend.h"

#include <QCoreApplication>
#include <QHelpEvent>
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
  setVisible(false);
}

void PlotLegend::setEntries(const QVector<LegendEntry>& entries) {
  m_entries = entries;
  m_blockStarts.clear();
  for (int i = 0; i < m_entries.size(); ++i) {
    if (i == 0 || m_entries[i].block != m_entries[i - 1].block) m_blockStarts.push_back(i);
  }
  setVisible(!m_entries.isEmpty());
  updateGeometry();
  updateScrollBar();
  update();
}

int PlotLegend::entryWidth(int index) const {
  // Two pixels over the text's advance: elidedText cut names given exactly their advance.
  return kSwatchWidth + kTextGap + fontMetrics().horizontalAdvance(m_entries[index].name) + 2;
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

void PlotLegend::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateScrollBar();
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
    drawSwatch(painter, QRect(entry.left(), entry.center().y() - kSwatchHeight / 2, kSwatchWidth, kSwatchHeight), m_entries[i]);
    const QRect text = entry.adjusted(kSwatchWidth + kTextGap, 0, 0, 0);
    const bool whole = entry.width() >= entryWidth(i);
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(whole ? text.adjusted(0, 0, kSpacing / 2, 0) : text, Qt::AlignLeft | Qt::AlignVCenter,
                     whole ? m_entries[i].name : fontMetrics().elidedText(m_entries[i].name, Qt::ElideRight, text.width()));
  }
}

bool PlotLegend::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  const auto* help = static_cast<QHelpEvent*>(event);
  for (int i = 0; i < m_entries.size(); ++i) {
    const QRect rect = entryRect(i);
    if (rect.contains(help->pos()) && rect.width() < entryWidth(i)) {
      QToolTip::showText(help->globalPos(), m_entries[i].name, this);
      return true;
    }
  }
  QToolTip::hideText();
  event->ignore();
  return true;
}

}  // namespace ensemble::ui
