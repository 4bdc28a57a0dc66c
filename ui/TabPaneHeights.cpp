// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/TabPaneHeights.h"

#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include <QCoreApplication>
#include <QEvent>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>

namespace ensemble::ui {
namespace {

constexpr const char* kSettingsKey = "window/tabHeights";
// Growing a pane by a plot's shortfall is exact where the page has one row of plots; a page
// with plots stacked needs another pass or two.
constexpr int kFitPasses = 3;

}  // namespace

TabPaneHeights::TabPaneHeights(QSplitter& splitter, QTabWidget& tabs, QObject* parent)
    : QObject(parent), m_splitter(splitter), m_tabs(tabs) {
  const QVariantMap saved = QSettings().value(kSettingsKey).toMap();
  for (auto it = saved.begin(); it != saved.end(); ++it) {
    bool ok = false;
    const double share = it.value().toDouble(&ok);
    if (ok && share >= 0 && share <= 1) m_chosenShares.insert(it.key(), share);
  }
  for (int index = 0; index < m_tabs.count(); ++index) {
    QWidget* page = m_tabs.widget(index);
    m_ownPolicies.insert(page, page->sizePolicy().verticalPolicy());
  }
  yieldHiddenPagesHeight();
  // First the least height, then the fit: the splitter honours the shown page's minimum.
  connect(&m_tabs, &QTabWidget::currentChanged, this, &TabPaneHeights::yieldHiddenPagesHeight);
  connect(&m_tabs, &QTabWidget::currentChanged, this, &TabPaneHeights::fit);
  // Emitted for the user's drags only (setSizes does not emit it).
  connect(&m_splitter, &QSplitter::splitterMoved, this, &TabPaneHeights::remember);
  m_splitter.installEventFilter(this);
  if (m_splitter.count() > 1) m_splitter.handle(m_splitter.count() - 1)->installEventFilter(this);
}

bool TabPaneHeights::eventFilter(QObject* watched, QEvent* event) {
  if (watched == &m_splitter && event->type() == QEvent::Resize && m_splitter.height() > 0 && !m_fitPending) {
    // The window's first size, or a new one: the shown tab's height is set again once the
    // panes are laid out (its share, or what its plots need at this size). Once for a burst.
    m_shown = true;
    m_fitPending = true;
    QMetaObject::invokeMethod(this, [this] {
      m_fitPending = false;
      fit();
    }, Qt::QueuedConnection);
  } else if (watched != &m_splitter && event->type() == QEvent::MouseButtonDblClick) {
    forget();
    return true;
  }
  return QObject::eventFilter(watched, event);
}

QString TabPaneHeights::currentKey() const {
  const QWidget* page = m_tabs.currentWidget();
  return page && !page->objectName().isEmpty() ? page->objectName() : QString("tab%1").arg(m_tabs.currentIndex());
}

int TabPaneHeights::total() const {
  const QList<int> sizes = m_splitter.sizes();
  int sum = 0;
  for (int size : sizes) sum += size;
  return sum;
}

void TabPaneHeights::setTabsHeight(int height) {
  const int all = total();
  height = std::clamp(height, 0, all);
  QList<int> sizes = m_splitter.sizes();
  if (sizes.size() < 2) return;
  sizes.fill(0);
  sizes.front() = all - height;
  sizes.back() = height;
  m_splitter.setSizes(sizes);
  // The pages' own layouts (a page just shown posts its request) take their new room now, so
  // what is measured next is what the user will see.
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
}

void TabPaneHeights::yieldHiddenPagesHeight() {
  for (auto it = m_ownPolicies.constBegin(); it != m_ownPolicies.constEnd(); ++it) {
    QWidget* page = it.key();
    QSizePolicy policy = page->sizePolicy();
    // Ignored: QStackedLayout's least size leaves the page out (qSmartMinSize).
    policy.setVerticalPolicy(page == m_tabs.currentWidget() ? it.value() : QSizePolicy::Ignored);
    page->setSizePolicy(policy);
  }
}

int TabPaneHeights::tallestPlotHeight() const {
  const QWidget* page = m_tabs.currentWidget();
  if (!page) return -1;
  int tallest = -1;
  for (const QCustomPlot* plot : page->findChildren<QCustomPlot*>()) {
    if (plot->isVisible()) tallest = std::max(tallest, plot->height());
  }
  return tallest;
}

int TabPaneHeights::automaticHeight() {
  const int all = total();
  const int largest = int(std::lround(all * kLargestAutomaticShare));
  int height = int(std::lround(all * kDefaultShare));
  setTabsHeight(height);
  for (int pass = 0; pass < kFitPasses; ++pass) {
    const int tallest = tallestPlotHeight();
    // A page without plots (the run list) or whose plots are readable keeps the default.
    if (tallest < 0 || tallest >= kReadablePlotHeight || height >= largest) break;
    height = std::min(largest, height + (kReadablePlotHeight - tallest));
    setTabsHeight(height);
  }
  return m_splitter.sizes().back();
}

void TabPaneHeights::fit() {
  if (!m_shown || total() <= 0) return;
  const auto chosen = m_chosenShares.constFind(currentKey());
  if (chosen != m_chosenShares.constEnd()) setTabsHeight(int(std::lround(*chosen * total())));
  else automaticHeight();
}

void TabPaneHeights::remember() {
  const int all = total();
  if (all <= 0) return;
  m_chosenShares.insert(currentKey(), double(m_splitter.sizes().back()) / all);
  save();
}

void TabPaneHeights::forget() {
  m_chosenShares.remove(currentKey());
  save();
  fit();
}

void TabPaneHeights::save() const {
  QVariantMap shares;
  for (auto it = m_chosenShares.begin(); it != m_chosenShares.end(); ++it) shares.insert(it.key(), it.value());
  QSettings().setValue(kSettingsKey, shares);
}

}  // namespace ensemble::ui
