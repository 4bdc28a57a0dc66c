// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/MetricPlot.h"

#include <qcustomplot.h>

#include <QHash>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "ui/LegendRow.h"
#include "ui/PlotExport.h"
#include "ui/PlotHint.h"
#include "ui/PlotTitle.h"
#include "ui/RunColors.h"

namespace ensemble::ui {
namespace {

bool isLoss(Metric metric) { return metric == Metric::TrainLoss || metric == Metric::TestLoss; }
bool isTrain(Metric metric) { return metric == Metric::TrainLoss || metric == Metric::TrainAccuracy; }

}  // namespace

MetricPlot::MetricPlot(Metric metric, QWidget* parent)
    : QWidget(parent), m_metric(metric), m_plot(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  // 160 px tall at least: in the window the legend is the panel's, so all of it is axes
  // (200 had been the floor with a legend inside; five compared runs then needed a scroll).
  // 240 wide: two side by side beside the Experiment panel in half a 1920-px screen.
  setMinimumSize(240, 160);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->plotLayout()->insertRow(0);
  m_plot->plotLayout()->addElement(0, 0, new PlotTitle(m_plot, title()));
  m_plot->xAxis->setLabel(isTrain(metric) ? "step" : "epoch");
  m_plot->yAxis->setLabel(isLoss(metric) ? "loss (NLL)" : "accuracy");
  m_plot->legend->setVisible(false);  // shown once it has entries
  // Entries are added by name (rebuild): added with every graph and most taken out again,
  // each removal re-laid the legend's grid, and selecting 3,000 runs froze the window for minutes.
  m_plot->setAutoAddPlottableToLegend(false);
  m_hint = addPlotHint(m_plot);
  showPlotHint(m_hint, whyEmpty());
  showEmptyRanges();
  m_plot->legend->setFont(QFont(font().family(), 8));
  // The legend under the axes, never over the data: entries two to a row, the plot's own
  // height given to the curves. (Inside the axes, compared runs' legends hid a third of
  // each plot and the epoch-1 test points.)
  m_plot->legend->setBrush(Qt::NoBrush);
  m_plot->legend->setBorderPen(Qt::NoPen);
  m_plot->axisRect()->insetLayout()->take(m_plot->legend);
  m_plot->plotLayout()->insertRow(2);  // the legend's, while it has entries (LegendRow.h)
  m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);  // across, then the next row
  m_plot->legend->setWrap(2);
  m_plot->legend->setMargins(QMargins(4, 0, 4, 2));
  m_plot->plotLayout()->setRowStretchFactor(2, 0.001);
  if (!isTrain(metric)) {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    m_plot->xAxis->setTicker(ticker);
  }
  // Manual zoom or pan stops following the data; a double click follows again.
  connect(m_plot, &QCustomPlot::mousePress, this, [this] { m_follow = false; });
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this] { m_follow = false; });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { followData(); });
}

QString MetricPlot::title() const {
  switch (m_metric) {
    case Metric::TrainLoss: return tr("Training loss");
    case Metric::TrainAccuracy: return tr("Training accuracy");
    case Metric::TestLoss: return tr("Test loss");
    case Metric::TestAccuracy: return tr("Test accuracy");
  }
  return {};
}

bool MetricPlot::smoothed() const { return isTrain(m_metric) && m_smoothing > 0; }

void MetricPlot::setRuns(const QVector<std::shared_ptr<const RunCurves>>& runs) {
  m_runs = runs;
  m_hidden.clear();
  rebuild();
  refresh();
}

void MetricPlot::setGroups(const QVector<std::shared_ptr<const SeedGroupCurves>>& groups) {
  m_groups = groups;
  m_hidden.clear();
  rebuild();
  refresh();
}

void MetricPlot::setBandKind(BandKind kind) {
  if (kind == m_bandKind) return;
  m_bandKind = kind;
  rebuild();
  refresh();
}

void MetricPlot::setSmoothing(double weight) {
  m_smoothing = std::clamp(weight, 0.0, 0.99);
  if (isTrain(m_metric)) {
    rebuild();
    refresh();
  }
}

void MetricPlot::setLogScale(bool logarithmic) {
  if (!isLoss(m_metric)) return;
  m_logScale = logarithmic;
  m_plot->yAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  m_plot->yAxis->setTicker(logarithmic ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                       : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  followData();
}

void MetricPlot::setEpochAxis(bool epochs) {
  if (!isTrain(m_metric) || epochs == m_epochAxis) return;
  m_epochAxis = epochs;
  m_plot->xAxis->setLabel(epochs ? tr("epoch") : tr("step"));
  rebuild();
  refresh();
}

void MetricPlot::followData() {
  m_follow = true;
  m_needsReplot = true;
  refresh();
}

void MetricPlot::rebuild() {
  m_needsReplot = true;
  m_plot->legend->clearItems();  // at once, the grid laid out once: before the plottables, which take theirs one by one
  m_plot->clearPlottables();  // graphs, and a lone band point's error bars
  m_lines.clear();
  m_blockOf.clear();
  // Overlaid, a run (or group) is one legend block; alone, each of its entries is one.
  const bool overlaid = this->overlaid();
  int nextBlock = 0;
  for (int r = 0; r < m_runs.size(); ++r) {
    const auto& run = m_runs[r];
    const QColor base = runColor(r);
    const QVector<int> members = run->members();
    const bool hasEnsemble = members.contains(RunCurves::kEnsemble);
    const int memberCount = int(members.size()) - (hasEnsemble ? 1 : 0);
    // Up to three members get a legend entry each; more, or the members of overlaid runs,
    // share one ("members 0-7"), drawn by the first member's line, so no line on the plot
    // goes unnamed and a comparison's legend stays short.
    const bool oneEntryForMembers = hasEnsemble && (memberCount > 3 || overlaid);
    bool membersNamed = false;
    int membersBlock = -1;
    for (const int member : members) {
      // The ensemble (or the only model) is bold; members are thin and lighter.
      const bool bold = member == RunCurves::kEnsemble || (!hasEnsemble && member == 0);
      const QColor color = bold ? base.darker(115) : base.lighter(130 + 15 * (member % 4));
      Line line;
      line.run = run;
      line.runIndex = r;
      line.member = member;
      if (smoothed()) {
        line.raw = m_plot->addGraph();
        QColor faded = color;
        faded.setAlpha(60);
        line.raw->setPen(QPen(faded, 1));
      }
      line.shown = m_plot->addGraph();
      line.shown->setPen(QPen(color, bold ? 2.5 : 1.0));
      if (!isTrain(m_metric)) {  // one point per epoch: mark them, a single one has no line
        line.shown->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, bold ? 7 : 4));
      }
      QString who = member == RunCurves::kEnsemble ? tr("ensemble")
                    : hasEnsemble || members.size() > 1 ? tr("member %1").arg(member)
                                                        : tr("model");
      int block = overlaid ? r : -1;
      bool listed = true;
      if (oneEntryForMembers && member != RunCurves::kEnsemble) {
        who = tr("members 0–%1 (thin)").arg(memberCount - 1);
        listed = !membersNamed;  // the first member's line names them all
        membersNamed = true;
        if (!overlaid && membersBlock < 0) membersBlock = nextBlock++;
        if (!overlaid) block = membersBlock;
      } else if (!overlaid) {
        block = nextBlock++;
      }
      m_blockOf[line.shown] = block;
      if (line.raw) m_blockOf[line.raw] = block;
      // Overlaid runs (or seed groups): a run's bold line is named by the run, and its
      // members' entry beside it, in its colour, by the members alone. (Both had named the
      // run, and at 1400x900 two runs' legends took half of each plot's height.)
      const bool named = overlaid && !run->label().isEmpty() && bold;
      line.shown->setName(named ? run->label() : who);
      if (listed) line.shown->addToLegend();
      m_lines.push_back(line);
    }
  }
  m_groupGraphs.clear();
  for (int g = 0; g < m_groups.size(); ++g) {
    addGroup(g, runColor(int(m_runs.size()) + g));
    const GroupGraphs& graphs = m_groupGraphs.back();
    // Alone, a group's mean is one block and its band (edges and bar) the next.
    const int mean = overlaid ? int(m_runs.size()) + g : nextBlock++;
    const int band = overlaid ? mean : nextBlock++;
    m_blockOf[graphs.mean] = mean;
    for (QCPAbstractPlottable* part : {static_cast<QCPAbstractPlottable*>(graphs.lower),
                                             static_cast<QCPAbstractPlottable*>(graphs.upper),
                                             static_cast<QCPAbstractPlottable*>(graphs.bars)}) {
      if (part) m_blockOf[part] = band;
    }
  }
  m_follow = true;
  applyHidden();
  emit legendChanged();
}

void MetricPlot::addGroup(int index, const QColor& color) {
  const SeedGroupCurves& group = *m_groups[index];
  const Band& band = group.band(m_metric);
  const bool deviation = m_bandKind == BandKind::StandardDeviation;
  QVector<double> keys = band.x, mean = band.mean, lower(band.x.size()), upper(band.x.size());
  for (int i = 0; i < band.x.size(); ++i) {
    lower[i] = deviation ? band.mean[i] - band.std[i] : band.min[i];
    upper[i] = deviation ? band.mean[i] + band.std[i] : band.max[i];
    if (m_epochAxis && isTrain(m_metric) && group.stepsPerEpoch() > 0) keys[i] /= group.stepsPerEpoch();
  }
  for (QVector<double>* values : {&mean, &lower, &upper}) {
    for (double& value : *values) value = std::isfinite(value) ? value : std::nan("");  // a gap, as on a run's line
  }
  if (smoothed()) {  // the same moving average as a run's line, on the mean and on both edges
    for (QVector<double>* values : {&mean, &lower, &upper}) {
      double average = std::nan("");
      for (double& value : *values) {
        if (std::isnan(value)) continue;
        average = std::isnan(average) ? value : m_smoothing * average + (1 - m_smoothing) * value;
        value = average;
      }
    }
  }
  GroupGraphs graphs;
  QColor fill = color;
  fill.setAlpha(55);
  graphs.lower = m_plot->addGraph();
  graphs.lower->setPen(QPen(fill, 1));
  graphs.upper = m_plot->addGraph();
  graphs.upper->setPen(QPen(fill, 1));
  graphs.upper->setBrush(fill);
  graphs.upper->setChannelFillGraph(graphs.lower);
  graphs.mean = m_plot->addGraph();
  graphs.mean->setPen(QPen(color.darker(115), 2.5));
  if (!isTrain(m_metric)) graphs.mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
  graphs.mean->setName(tr("%1: mean").arg(group.label()));
  graphs.upper->setName(deviation ? tr("%1: ± 1 std").arg(group.name()) : tr("%1: min–max").arg(group.name()));
  graphs.mean->addToLegend();  // the legend lists the mean, then its band (the upper edge's entry, or the bar's)
  graphs.lower->setData(keys, lower, true);
  graphs.upper->setData(keys, upper, true);
  graphs.mean->setData(keys, mean, true);
  if (keys.size() == 1) {
    // A fill between edges needs two keys (a group trained for one epoch has one test
    // point): the spread is an error bar on the mean's point instead, and the legend's
    // band entry names the bar.
    graphs.bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
    graphs.bars->setDataPlottable(graphs.mean);
    graphs.bars->setData(QVector<double>{mean[0] - lower[0]}, QVector<double>{upper[0] - mean[0]});
    graphs.bars->setPen(QPen(color.darker(115), 1.5));
    graphs.bars->setWhiskerWidth(10);
    graphs.bars->setName(graphs.upper->name());
    graphs.bars->addToLegend();
  } else {
    graphs.upper->addToLegend();
  }
  m_groupGraphs.push_back(graphs);
}

bool MetricPlot::structureChanged() const {
  // A live run gains its members' curves after the plot was set up: draw them then.
  int expected = 0;
  for (const auto& run : m_runs) expected += int(run->members().size());
  return expected != m_lines.size();
}

void MetricPlot::refresh() {
  if (structureChanged()) rebuild();
  bool added = false;
  for (Line& line : m_lines) {
    const Series& series = line.run->series(m_metric, line.member);
    if (series.x.size() <= line.appended) continue;
    const int begin = line.appended, end = int(series.x.size());
    QVector<double> keys(series.x.begin() + begin, series.x.end());
    if (m_epochAxis && isTrain(m_metric) && line.run->stepsPerEpoch() > 0) {
      for (double& key : keys) key /= line.run->stepsPerEpoch();
    }
    QVector<double> values(series.y.begin() + begin, series.y.end());
    // A loss that overflowed (inf in metrics.csv, as a diverging run writes it) is a gap in
    // the line: infinite, it had stretched the axis and, averaged in, blanked the smoothed
    // line from there on.
    for (double& value : values) value = std::isfinite(value) ? value : std::nan("");
    if (smoothed()) {
      line.raw->addData(keys, values, true);
      for (int i = 0; i < values.size(); ++i) {
        // TensorBoard's debiased EMA: started at 0 and divided by 1 - w^n, so the first
        // points weigh no more than later ones. Seeded with the first point instead, the
        // high loss of a run's first steps held a short run's line far above its data.
        if (begin + i == 0) line.average = 0, line.averaged = 0;
        if (std::isnan(values[i])) continue;  // a gap, the average going on past it
        line.average = m_smoothing * line.average + (1 - m_smoothing) * values[i];
        line.averaged += 1;
        const double debias = 1 - std::pow(m_smoothing, line.averaged);
        values[i] = debias > 0 ? line.average / debias : values[i];
      }
    }
    line.shown->addData(keys, values, true);
    if (isTrain(m_metric)) {
      // A line needs two points: a run that logged once (a short run, a large --log-every)
      // shows its point as a dot until the second arrives.
      const bool lone = line.shown->dataCount() == 1;
      line.shown->setScatterStyle(lone ? QCPScatterStyle(QCPScatterStyle::ssDisc, line.shown->pen().widthF() > 2 ? 7 : 4)
                                       : QCPScatterStyle());
    }
    line.appended = end;
    added = true;
  }
  // Nothing new since the last replot (progress without a logged step, or points for the
  // other plots): no redraw. Redraws take the CPU the run trains on (bench/gui_vs_cli.py).
  if (!added && !m_needsReplot) return;
  m_needsReplot = false;
  bool hasData = false;
  for (const Line& line : m_lines) hasData = hasData || line.appended > 0;
  for (const GroupGraphs& group : m_groupGraphs) hasData = hasData || group.mean->dataCount() > 0;
  if (m_follow && !hasData) showEmptyRanges();  // not the previous run's ranges
  showPlotHint(m_hint, hasData ? QString() : whyEmpty());
  bool shownData = false;  // every line hidden from the legend: the axes stay as they are
  for (int g = 0; g < m_plot->graphCount(); ++g) shownData = shownData || (m_plot->graph(g)->visible() && m_plot->graph(g)->dataCount() > 0);
  if (m_follow && hasData && shownData) {
    m_plot->rescaleAxes(/*onlyVisiblePlottables=*/true);  // a line hidden from the legend leaves the axes too
    // Keep points off the frame: pad the value range (a lone point gets a fixed margin);
    // accuracy stays within [0, 1]; epochs get half an epoch on each side (from 0 when an
    // evaluation between epoch ends comes before the first epoch's).
    const QCPRange y = m_plot->yAxis->range();
    const double pad = std::max(0.08 * (y.upper - y.lower), 0.01 * std::max(std::abs(y.upper), 1e-3));
    if (m_logScale) m_plot->yAxis->setRange(y.lower / 1.15, y.upper * 1.15);
    else m_plot->yAxis->setRange(std::max(0.0, y.lower - pad),
                                 isLoss(m_metric) ? y.upper + pad : std::min(1.0, y.upper + pad));
    if (!isTrain(m_metric)) {
      double first = 1;  // the earliest evaluation drawn (a lone point's rescaled range is not its key)
      for (int g = 0; g < m_plot->graphCount(); ++g) {
        const QCPGraph* graph = m_plot->graph(g);
        if (graph->visible() && !graph->data()->isEmpty()) first = std::min(first, graph->data()->constBegin()->key);
      }
      m_plot->xAxis->setRange(std::max(0.0, std::min(0.5, first - 0.25)),
                              std::max(1.5, m_plot->xAxis->range().upper + 0.5));
    } else {
      // Steps (or epochs) from 0: a lone first point's rescaled range is centred on it,
      // which showed an empty axis from -40 to 60.
      double last = 0;
      for (int g = 0; g < m_plot->graphCount(); ++g) {
        const QCPGraph* graph = m_plot->graph(g);
        if (graph->visible() && !graph->data()->isEmpty()) last = std::max(last, (graph->data()->constEnd() - 1)->key);
      }
      // A few pixels past the last point: at the frame's edge, a lone point's dot and a bold
      // line's end were cut in half.
      const int width = m_plot->axisRect()->width();
      const double room = width > 0 ? 6.0 / width : 0.0;
      m_plot->xAxis->setRange(0, last > 0 ? last * (1 + room) : 1.0);
    }
  }
  placeLegend(m_ownLegend);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricPlot::placeLegend(bool shown) {
  placeLegendRow(m_plot, m_plot->legend, 2, 0, shown);
  if (shown) fitLegend(width());
}

void MetricPlot::setOwnLegend(bool shown) {
  if (shown == m_ownLegend) return;
  m_ownLegend = shown;
  placeLegend(shown);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QVector<LegendEntry> MetricPlot::legendEntries() const {
  QVector<LegendEntry> entries;
  for (int i = 0; i < m_plot->legend->itemCount(); ++i) {
    auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i));
    if (!item) continue;
    QCPAbstractPlottable* plottable = item->plottable();
    LegendEntry entry{plottable->name(), plottable->pen(), plottable->brush()};
    entry.block = m_blockOf.value(plottable, -1);
    if (qobject_cast<const QCPErrorBars*>(plottable)) entry.kind = LegendEntry::Kind::ErrorBar;
    else if (plottable->brush().style() != Qt::NoBrush) entry.kind = LegendEntry::Kind::Band;
    entries.push_back(entry);
  }
  return entries;
}

void MetricPlot::setHiddenBlocks(const QSet<int>& blocks) {
  if (blocks == m_hidden) return;
  m_hidden = blocks;
  applyHidden();
  followData();
}

void MetricPlot::applyHidden() {
  for (auto it = m_blockOf.begin(); it != m_blockOf.end(); ++it) {
    it.key()->setVisible(!m_hidden.contains(it.value()));
  }
  m_needsReplot = true;
}

bool MetricPlot::blockShown(int block) const {
  for (auto it = m_blockOf.begin(); it != m_blockOf.end(); ++it) {
    if (it.value() == block && it.key()->visible()) return true;
  }
  return false;
}

QString MetricPlot::exportTo(const QString& path, const QString& caption) {
  // A file shows what the screen does: hidden lines leave its legend too, for the export.
  QVector<QCPAbstractPlottable*> order;  // the legend's, to restore
  for (int i = 0; i < m_plot->legend->itemCount(); ++i) {
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(m_plot->legend->item(i))) order.push_back(item->plottable());
  }
  bool unnamed = false;
  for (QCPAbstractPlottable* plottable : order) {
    if (m_hidden.contains(m_blockOf.value(plottable, -1))) unnamed = plottable->removeFromLegend() || unnamed;
  }
  // The image is at least 640 px wide (exportPlot): the legend's columns fit that width.
  placeLegendRow(m_plot, m_plot->legend, 2, 0, true);
  fitLegend(std::max(width(), 640));
  const QString error = exportPlot(m_plot, path, caption);
  if (unnamed) {  // back in their places: the legend only appends
    m_plot->legend->clearItems();
    for (QCPAbstractPlottable* plottable : order) plottable->addToLegend();
  }
  placeLegend(m_ownLegend);
  m_plot->replot();
  return error;
}

void MetricPlot::showEmptyRanges() {
  m_plot->yAxis->setRange(0, isLoss(m_metric) ? 2.5 : 1.0);
  m_plot->xAxis->setRange(isTrain(m_metric) ? 0 : 0.5, isTrain(m_metric) ? 100 : 3.5);
}

void MetricPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (m_ownLegend) fitLegend(width());
}

void MetricPlot::fitLegend(int width) {
  QCPLegend* legend = m_plot->legend;
  const QFontMetrics metrics(legend->font());
  // An entry is its icon (32 px by default), the gap and the text, plus the column spacing.
  // Entries fill the rows across (entry i in column i % columns), so each column is as wide
  // as its widest entry: the most columns (up to 3) whose widths fit the plot's. Overlaid
  // runs keep two columns at most, so a run's members' entry stays on its run's row.
  const int overhead = legend->iconSize().width() + legend->iconTextPadding() + 16;
  const bool paired = overlaid();
  int columns = 1;
  for (int candidate = paired ? 2 : 3; candidate > 1 && columns == 1; --candidate) {
    QVector<int> widths(candidate, 0);
    int shown = 0;
    for (int i = 0; i < legend->itemCount(); ++i) {
      if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i))) {
        widths[shown % candidate] = std::max(widths[shown % candidate], metrics.horizontalAdvance(item->plottable()->name()) + overhead);
        ++shown;
      }
    }
    if (std::accumulate(widths.begin(), widths.end(), 0) <= width) columns = candidate;
  }
  if (legend->wrap() == columns) return;
  legend->setWrap(columns);
  legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // the wrap reaches the entries already there only so
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int MetricPlot::graphCount() const { return m_plot->graphCount(); }

QString MetricPlot::whyEmpty() const {
  if (m_runs.isEmpty() && m_groups.isEmpty()) {
    if (m_unreadable.isEmpty()) return tr("No run shown: select runs in the Runs tab, or start one");
    // The reason can be long (a parse error): its first line, the Runs table's Status cell has it all.
    const QString first = m_unreadable.front().section('\n', 0, 0);
    return m_unreadable.size() == 1 ? first : tr("%1\n(and %2 more selected runs that cannot be read)").arg(first).arg(m_unreadable.size() - 1);
  }
  return isTrain(m_metric) ? tr("No logged step yet")
                           : tr("No test point yet: a run is scored at each epoch's end\n(or every N steps: Evaluate every)");
}

QString MetricPlot::emptyHint() const { return m_hint->visible() ? plotHintText(m_hint) : QString(); }

int MetricPlot::pointsOf(int runIndex, int member) const {
  for (const Line& line : m_lines) {
    if (line.runIndex == runIndex && line.member == member) return line.shown->dataCount();
  }
  return 0;
}

double MetricPlot::smoothedValue(int runIndex, int member, int index) const {
  for (const Line& line : m_lines) {
    if (line.runIndex == runIndex && line.member == member) return line.shown->data()->at(index)->value;
  }
  return std::nan("");
}

}  // namespace ensemble::ui
