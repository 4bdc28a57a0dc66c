// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Seed groups: runs whose settings differ only in their seed are one experiment repeated.
// Their curves summarise as a mean line with a band (± one standard deviation, or min to
// max) at every point all of them have, which is what TensorBoard users have asked for
// since 2017 (tensorboard#376). The headline curve of a run is its ensemble's, or its only
// model's.
#include <QString>
#include <QVector>
#include <array>
#include <memory>

#include "core/train/ExperimentConfig.h"
#include "ui/RunCurves.h"

namespace ensemble::ui {

/// Equal for runs that differ only in seed: their config.json without "seed" and "version".
QString seedGroupKey(const ExperimentConfig& config);

/// One curve across runs, at each x that every run has (in increasing x).
struct Band {
  QVector<double> x, mean, std, min, max;  ///< std: sample standard deviation (n - 1; 0 for one run)
};

/// The band of `series` (the same metric of several runs).
Band bandOf(const QVector<const Series*>& series);

enum class BandKind { StandardDeviation, MinMax };

/// The headline curves of a seed group, each metric summarised as a band.
class SeedGroupCurves final {
 public:
  /// `runs`: the group's curves (two or more); `name` ("group A") and `label` ("group A
  /// (single, cnn, seeds 0,1,2)") name it in legends: the mean by its label, the band by its name.
  SeedGroupCurves(QString name, QString label, const QVector<std::shared_ptr<const RunCurves>>& runs);

  const QString& name() const { return m_name; }
  const QString& label() const { return m_label; }
  int runCount() const { return m_runCount; }
  const Band& band(Metric metric) const { return m_bands[std::size_t(metric)]; }
  /// The runs' steps per epoch (they share their settings), 0 when unknown.
  double stepsPerEpoch() const { return m_stepsPerEpoch; }

 private:
  QString m_name, m_label;
  int m_runCount = 0;
  double m_stepsPerEpoch = 0;
  std::array<Band, kMetricCount> m_bands;
};

}  // namespace ensemble::ui
