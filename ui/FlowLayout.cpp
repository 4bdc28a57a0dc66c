// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/FlowLayout.h"

#include <QHBoxLayout>
#include <QStyle>
#include <QWidget>
#include <QWidgetItem>
#include <algorithm>

namespace ensemble::ui {
namespace {

/// The style's spacing between two controls, as a QBoxLayout without its own spacing uses.
int styleSpacing(const QLayout& layout, QStyle::PixelMetric metric) {
  const QWidget* widget = layout.parentWidget();
  if (!widget) return 6;
  return widget->style()->pixelMetric(metric, nullptr, widget);
}

}  // namespace

FlowLayout::FlowLayout(QWidget* parent) : QLayout(parent) {}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addWidget(QWidget* widget, int stretch) {
  addChildWidget(widget);
  m_entries.push_back({new QWidgetItem(widget), std::max(0, stretch), m_pendingGap});
  m_pendingGap = 0;
  invalidate();
}

void FlowLayout::addSpacing(int pixels) { m_pendingGap += std::max(0, pixels); }

void FlowLayout::addItem(QLayoutItem* item) {
  m_entries.push_back({item, 0, m_pendingGap});
  m_pendingGap = 0;
  invalidate();
}

int FlowLayout::count() const { return int(m_entries.size()); }

QLayoutItem* FlowLayout::itemAt(int index) const {
  return index >= 0 && index < m_entries.size() ? m_entries[index].item : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
  if (index < 0 || index >= m_entries.size()) return nullptr;
  QLayoutItem* item = m_entries.takeAt(index).item;
  invalidate();
  return item;
}

Qt::Orientations FlowLayout::expandingDirections() const {
  const bool stretches = std::any_of(m_entries.begin(), m_entries.end(), [](const Entry& entry) { return entry.stretch > 0; });
  return stretches ? Qt::Horizontal : Qt::Orientations();
}

int FlowLayout::heightForWidth(int width) const {
  if (width != m_cachedWidth) {
    m_cachedHeight = arrange(QRect(0, 0, width, 0), false);
    m_cachedWidth = width;
  }
  return m_cachedHeight;
}

QSize FlowLayout::minimumSize() const {
  // As narrow as its widest item; its height at that width is heightForWidth's.
  QSize size;
  for (const Entry& entry : m_entries) {
    if (!entry.item->isEmpty()) size = size.expandedTo(entry.item->minimumSize());
  }
  const QMargins margins = contentsMargins();
  return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

QSize FlowLayout::sizeHint() const {
  // Every item on one line.
  int width = 0;
  int height = 0;
  bool first = true;
  for (const Entry& entry : m_entries) {
    if (entry.item->isEmpty()) continue;
    const QSize hint = entry.item->sizeHint();
    width += hint.width() + (first ? 0 : horizontalGap() + entry.gapBefore);
    height = std::max(height, hint.height());
    first = false;
  }
  const QMargins margins = contentsMargins();
  return {width + margins.left() + margins.right(), height + margins.top() + margins.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

void FlowLayout::invalidate() {
  m_cachedWidth = -1;
  QLayout::invalidate();
}

int FlowLayout::horizontalGap() const {
  return spacing() >= 0 ? spacing() : styleSpacing(*this, QStyle::PM_LayoutHorizontalSpacing);
}

int FlowLayout::verticalGap() const {
  return spacing() >= 0 ? spacing() : styleSpacing(*this, QStyle::PM_LayoutVerticalSpacing);
}

int FlowLayout::arrange(const QRect& rect, bool apply) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  struct Placed {
    const Entry* entry;
    int width;
  };
  // Lines filled in order: an item that would cross the right edge starts the next line.
  QVector<QVector<Placed>> lines(1);
  int x = 0;
  for (const Entry& entry : m_entries) {
    QLayoutItem* item = entry.item;
    if (item->isEmpty()) continue;
    const int minimum = item->minimumSize().width();
    const int wanted = entry.stretch > 0 ? minimum : std::max(minimum, item->sizeHint().width());
    if (!lines.back().isEmpty() && x + horizontalGap() + entry.gapBefore + wanted > area.width()) {
      lines.push_back({});
      x = 0;
    }
    const int lead = lines.back().isEmpty() ? 0 : horizontalGap() + entry.gapBefore;
    const int width = std::max(minimum, std::min(wanted, area.width() - x - lead));
    lines.back().push_back({&entry, width});
    x += lead + width;
  }
  int y = area.top();
  bool firstLine = true;
  for (QVector<Placed>& line : lines) {
    if (line.isEmpty()) continue;
    // The spare width to the stretching items, each up to its maximum; what is left stays
    // at the line's end.
    int used = 0;
    int stretches = 0;
    for (int i = 0; i < line.size(); ++i) {
      used += line[i].width + (i ? horizontalGap() + line[i].entry->gapBefore : 0);
      stretches += line[i].entry->stretch;
    }
    const int spare = std::max(0, area.width() - used);
    int height = 0;
    for (Placed& placed : line) {
      if (stretches > 0 && placed.entry->stretch > 0) {
        const int share = spare * placed.entry->stretch / stretches;
        placed.width = std::min(placed.width + share, placed.entry->item->maximumSize().width());
      }
      QLayoutItem* item = placed.entry->item;
      const int itemHeight = item->hasHeightForWidth() ? item->heightForWidth(placed.width) : item->sizeHint().height();
      height = std::max(height, itemHeight);
    }
    if (!firstLine) y += verticalGap();
    firstLine = false;
    if (apply) {
      int left = area.left();
      for (int i = 0; i < line.size(); ++i) {
        QLayoutItem* item = line[i].entry->item;
        if (i) left += horizontalGap() + line[i].entry->gapBefore;
        const int itemHeight = std::min(height, item->hasHeightForWidth() ? item->heightForWidth(line[i].width)
                                                                          : item->sizeHint().height());
        // Each control centred on its line, as a QHBoxLayout centres a row's controls.
        item->setGeometry(QRect(left, y + (height - itemHeight) / 2, line[i].width, itemHeight));
        left += line[i].width;
      }
    }
    y += height;
  }
  const QMargins margins = contentsMargins();
  return y - area.top() + margins.top() + margins.bottom();
}

QWidget* sideBySide(std::initializer_list<QWidget*> widgets) {
  auto* group = new QWidget;
  auto* layout = new QHBoxLayout(group);
  layout->setContentsMargins(0, 0, 0, 0);
  int index = 0;
  for (QWidget* widget : widgets) layout->addWidget(widget, ++index == int(widgets.size()) ? 1 : 0);
  return group;
}

}  // namespace ensemble::ui
