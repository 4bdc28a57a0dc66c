// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Seed groups: runs whose settings differ only in their seed are one experiment repeated.
// Their curves summarise as a mean line with a band (± one standard deviation, or min to
// max), which is what TensorBoard users have asked for since 2017 (tensorboard#376). The
// headline curve of a run is its ensemble's, or its only model's. A run that ended early
// (stopped) stays in the group up to its last point, and the group's label says at which
// step the mean loses it, rather than the mean being cut at the shortest run.
#include <QString>
#include <QVector>
#include <array>
#include <memory>
#include <optional>

#include "core/config/ExperimentConfig.h"
#include "ui/RunCurves.h"

namespace ensemble::ui {

/// Equal for runs that differ only in seed: their config.json without "seed" and "version".
QString seedGroupKey(const ExperimentConfig& config);

/// One curve across runs, at each x that any run has (in increasing x), over the runs that
/// have it.
struct Band {
  QVector<double> x, mean, std, min, max;  ///< std: sample standard deviation (n - 1; 0 for one run)
  QVector<int> count;                      ///< how many runs each point is taken over
};

/// The band of `series` (the same metric of several runs).
Band bandOf(const QVector<const Series*>& series);

enum class BandKind { StandardDeviation, MinMax };

/// The headline curves of a seed group, each metric summarised as a band.
class SeedGroupCurves final {
 public:
  /// `runs`: the group's curves (two or more, one per seed); `name` ("group A") and `label`
  /// ("group A (single, cnn, seeds 0,1,2)") name it in legends: the mean by its label (with
  /// "; 2 of 3 runs after step 46" where a run ends early), the band by its name.
  SeedGroupCurves(QString name, QString label, const QVector<std::shared_ptr<const RunCurves>>& runs);

  const QString& name() const { return m_name; }
  const QString& label() const { return m_label; }
  int runCount() const { return m_runCount; }
  const Band& band(Metric metric) const { return m_bands[std::size_t(metric)]; }
  /// The last training step every run reached, when some run went further; else nullopt.
  std::optional<double> lastCommonStep() const { return m_lastCommonStep; }
  /// The runs' steps per epoch (they share their settings), 0 when unknown.
  double stepsPerEpoch() const { return m_stepsPerEpoch; }

 private:
  QString m_name, m_label;
  int m_runCount = 0;
  double m_stepsPerEpoch = 0;
  std::optional<double> m_lastCommonStep;
  std::array<Band, kMetricCount> m_bands;
};

}  // namespace ensemble::ui
