// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tabs below the live plots share one splitter with them, but want different heights:
// the run list reads well in a short pane, a reliability diagram or a confusion matrix does
// not (at 960x700 a confusion matrix had 127 px, 60 of them its cells). So each tab has its
// own height:
// - the one the user dragged the splitter to while that tab was shown, kept as a share of
//   the splitter (so it suits another window size) in QSettings, across restarts;
// - otherwise an automatic one: two fifths of the splitter, or more where that leaves the
//   page's plots under kReadablePlotHeight, up to two thirds (the live plots above scroll).
// Both are set again when the tab changes and when the window's size does.
// A double-click on the splitter's handle forgets the shown tab's height: automatic again.
// Only the shown page holds the tabs' least height: a QTabWidget takes its tallest page's
// minimum (the Uncertainty tab's controls and plots), which kept the run list's pane from
// being dragged under 281 px at 960 px wide.
#include <QHash>
#include <QObject>
#include <QSizePolicy>

class QSplitter;
class QTabWidget;

namespace ensemble::ui {

class TabPaneHeights final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(TabPaneHeights)

 public:
  /// A plot's height at which its axes, title and data can all be read.
  static constexpr int kReadablePlotHeight = 240;
  /// The tabs' automatic share of the splitter, and the most an automatic height takes.
  static constexpr double kDefaultShare = 0.4;
  static constexpr double kLargestAutomaticShare = 2.0 / 3.0;

  /// `tabs` is the splitter's last pane; the pane above it gives way. Each tab page needs an
  /// objectName: it names the page's height in the settings.
  TabPaneHeights(QSplitter& splitter, QTabWidget& tabs, QObject* parent = nullptr);

  /// Sets the shown tab's height: the user's, or the automatic one measured now. Called when
  /// the tab changes, and by pages whose plots change (another page of the Uncertainty tab).
  void fit();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QString currentKey() const;
  void remember();
  void forget();
  void setTabsHeight(int height);
  int automaticHeight();
  int tallestPlotHeight() const;
  int total() const;
  void save() const;
  /// Lets the shown page alone hold the tabs' least height (hidden pages' vertical policy
  /// Ignored, the shown one's given back).
  void yieldHiddenPagesHeight();

  QSplitter& m_splitter;
  QTabWidget& m_tabs;
  QHash<QString, double> m_chosenShares;  // page objectName -> the tabs' share of the splitter
  QHash<QWidget*, QSizePolicy::Policy> m_ownPolicies;  // each page's vertical policy, as built
  bool m_shown = false;                    // the splitter has had its first real size
  bool m_fitPending = false;               // a fit is queued for the splitter's new size
};

}  // namespace ensemble::ui
