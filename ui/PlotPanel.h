// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The four live plots (training and test loss and accuracy) with their controls
// (smoothing, log-scale loss, epoch axis) and the timer that repaints them: points arrive
// as fast as the engine steps, the plots repaint at most kRepaintIntervalMs apart.
#include <QVector>
#include <QStringList>
#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QScrollArea;
class QSlider;
class QTimer;

namespace ensemble::ui {

class MetricPlot;
class PlotLegend;
class RunCurves;
class SeedGroupCurves;

class PlotPanel final : public QWidget {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(PlotPanel)

 public:
  static constexpr int kRepaintIntervalMs = 100;  // at most 10 repaints a second

  explicit PlotPanel(QWidget* parent = nullptr);

  /// Shows these runs' curves on every plot (the live run first, by convention), then the
  /// seed groups' bands; `unreadable`: selected runs that could not be read, which an empty
  /// plot names (MetricPlot::setUnreadable).
  void setRuns(const QVector<std::shared_ptr<const RunCurves>>& runs,
               const QVector<std::shared_ptr<const SeedGroupCurves>>& groups = {},
               const QStringList& unreadable = {});
  /// Whether selected runs that differ only in seed show as one band (on by default).
  bool groupSeeds() const;
  /// New points in curves already shown: repaint at the next tick.
  void markChanged() { m_changed = true; }

  const QVector<MetricPlot*>& plots() const { return m_plots; }
  /// The plot last clicked (what File > Export plot writes).
  MetricPlot* activePlot() const { return m_activePlot; }
  /// The one legend of the four plots, above them (theirs are off; an export draws its own).
  PlotLegend* legend() const { return m_legend; }
  QSlider* smoothingSlider() const { return m_smoothing; }
  QCheckBox* epochAxisBox() const { return m_epochAxis; }
  QCheckBox* groupSeedsBox() const { return m_groupSeeds; }
  QComboBox* bandBox() const { return m_band; }

 signals:
  /// Seed grouping was switched on or off: the window regroups the selected runs.
  void groupingChanged();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Two plots a row where `width` holds two at their minimum width, else one (they then
  /// scroll up and down rather than sideways).
  void arrangePlots(int width);

  QVector<MetricPlot*> m_plots;
  QGridLayout* m_grid = nullptr;
  QScrollArea* m_scroll = nullptr;
  int m_columns = 2;
  MetricPlot* m_activePlot = nullptr;
  PlotLegend* m_legend = nullptr;
  QSlider* m_smoothing = nullptr;
  QCheckBox* m_logScale = nullptr;
  QCheckBox* m_epochAxis = nullptr;
  QCheckBox* m_groupSeeds = nullptr;
  QComboBox* m_band = nullptr;
  QTimer* m_repaint = nullptr;
  bool m_changed = false;
};

}  // namespace ensemble::ui
