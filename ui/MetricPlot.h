// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One live metric plot (QCustomPlot): a thin line per member and a bold one for the
// ensemble, for every shown run; an exponential-moving-average smoothing with the raw line
// kept faded beneath; log-scale loss; zoom and pan. New points are appended incrementally
// and the owner calls refresh() from a timer, so repaints stay bounded however fast the
// points arrive (QCustomPlot's realtime-demo pattern).
#include <QHash>
#include <QSet>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <memory>

#include "ui/PlotLegend.h"
#include "ui/RunCurves.h"
#include "ui/SeedGroups.h"

class QCustomPlot;
class QCPGraph;
class QCPErrorBars;
class QCPItemText;
class QCPAbstractPlottable;

namespace ensemble::ui {

class MetricPlot final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(MetricPlot)

 public:
  explicit MetricPlot(Metric metric, QWidget* parent = nullptr);

  /// The runs to draw (the live one and any selected for comparison).
  void setRuns(const QVector<std::shared_ptr<const RunCurves>>& runs);
  /// Selected runs that cannot be drawn, each as "Cannot read NAME: why": an empty plot says
  /// so rather than that nothing is selected. Kept until the next call.
  void setUnreadable(const QStringList& problems) { m_unreadable = problems; }
  /// Seed groups to draw after the runs: a mean line and a filled band each.
  void setGroups(const QVector<std::shared_ptr<const SeedGroupCurves>>& groups);
  /// What a group's band spans: ± one standard deviation (default) or min to max.
  void setBandKind(BandKind kind);
  /// EMA weight in [0, 1): 0 draws the raw points only. Applies to the train metrics.
  void setSmoothing(double weight);
  void setLogScale(bool logarithmic);
  /// Train metrics against epochs (step / steps per epoch) instead of steps.
  void setEpochAxis(bool epochs);
  /// Appends points that arrived since the last call and schedules one repaint.
  void refresh();
  /// Forgets manual zoom/pan and follows the data again.
  void followData();
  /// Whether the plot draws its legend under its axes (on by default). The window's panel
  /// turns it off and shows one legend for its four plots (PlotLegend.h).
  void setOwnLegend(bool shown);
  /// What the legend lists, in order. Where runs are overlaid, a run's entries (its bold
  /// line, its members') or a group's (mean, band) are one block; else each entry is its own.
  QVector<LegendEntry> legendEntries() const;
  /// Hides the lines of these legend blocks (LegendEntry::block), shows the others; the axes
  /// follow the lines shown. Kept until the runs shown change (setRuns, setGroups).
  void setHiddenBlocks(const QSet<int>& blocks);
  /// Whether any line of legend block `block` is drawn.
  bool blockShown(int block) const;
  /// Saves the plot as exportPlot does (PlotExport.h), with its own legend under the axes
  /// whether or not it shows one on screen: a figure names its lines.
  QString exportTo(const QString& path, const QString& caption = {});

  Metric metric() const { return m_metric; }
  const QVector<std::shared_ptr<const RunCurves>>& runs() const { return m_runs; }
  QString title() const;
  QCustomPlot* customPlot() const { return m_plot; }
  /// What the plot says while it is empty ("" once it has points).
  QString emptyHint() const;
  /// Graphs currently drawn (raw and smoothed lines).
  int graphCount() const;
  /// Points held by the smoothed (or only) line of `member` in run `runIndex`.
  int pointsOf(int runIndex, int member) const;
  /// Value of the smoothed (or only) line at point `index`, for tests.
  double smoothedValue(int runIndex, int member, int index) const;
  /// A seed group's graphs, for tests: its mean line and its band's edges.
  struct GroupGraphs {
    QCPGraph* mean = nullptr;
    QCPGraph* lower = nullptr;
    QCPGraph* upper = nullptr;  ///< filled down to `lower`
    QCPErrorBars* bars = nullptr;  ///< the band as an error bar, where it has one point only
  };
  GroupGraphs groupGraphs(int group) const { return m_groupGraphs.value(group); }

 signals:
  /// The lines, their names or their pens changed (a new run, a live run's members, the band's kind).
  void legendChanged();

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  /// As many legend columns as the widest entry leaves room for in `width` (1 to 3): the
  /// legend sits under the axes, and no entry is cut.
  void fitLegend(int width);
  /// Puts the legend under the axes while it has entries and `shown`, else takes it out.
  void placeLegend(bool shown);
  /// The ranges of a plot without data (what a new run starts from).
  void showEmptyRanges();
  /// What an empty plot says: why it is empty, and what to do.
  QString whyEmpty() const;
  struct Line {
    std::shared_ptr<const RunCurves> run;
    int runIndex = 0;
    int member = 0;
    QCPGraph* raw = nullptr;     ///< faded raw points (only when smoothing)
    QCPGraph* shown = nullptr;   ///< the smoothed line, or the raw line without smoothing
    int appended = 0;
    double average = 0;  ///< the EMA before its bias correction (TensorBoard's "last")
    int averaged = 0;     ///< points in it
  };
  void rebuild();
  void addGroup(int index, const QColor& color);
  bool structureChanged() const;
  /// Several runs or groups drawn: each is one legend block, named by its run.
  bool overlaid() const { return m_runs.size() + m_groups.size() > 1; }
  bool smoothed() const;

  Metric m_metric;
  QCustomPlot* m_plot;
  QCPItemText* m_hint;  ///< why the plot is empty, while it is
  QVector<std::shared_ptr<const RunCurves>> m_runs;
  QVector<Line> m_lines;
  QVector<std::shared_ptr<const SeedGroupCurves>> m_groups;
  QStringList m_unreadable;
  QVector<GroupGraphs> m_groupGraphs;
  BandKind m_bandKind = BandKind::StandardDeviation;
  double m_smoothing = 0.6;
  bool m_logScale = false;
  bool m_epochAxis = false;
  bool m_follow = true;
  bool m_ownLegend = true;
  /// Every plottable's legend block, those without an entry of their own included (a faded
  /// raw line, members named together, a band's lower edge): hiding a block hides them all.
  QHash<QCPAbstractPlottable*, int> m_blockOf;
  QSet<int> m_hidden;
  void applyHidden();
  /// Set by what changes the drawing other than new points (rebuild, axis settings): the
  /// next refresh replots even with no new points.
  bool m_needsReplot = true;
};

}  // namespace ensemble::ui
