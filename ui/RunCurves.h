// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The curves of one run: per member (and the ensemble), train loss/accuracy by step and
// test loss/accuracy by epoch (fractional for evaluations between epoch ends). Filled live from engine events or reloaded from metrics.csv.
#include <QMap>
#include <QString>
#include <QVector>
#include <array>
#include <vector>

#include "core/io/MetricsCsvWriter.h"
#include "core/train/TrainingEvents.h"

namespace ensemble::ui {

enum class Metric { TrainLoss, TrainAccuracy, TestLoss, TestAccuracy };
constexpr int kMetricCount = 4;

/// Points of one curve; x is the step (train metrics) or the epoch (test metrics).
struct Series {
  QVector<double> x, y;
};

class RunCurves final {
 public:
  static constexpr int kEnsemble = -1;  ///< the member index of the ensemble's curves

  explicit RunCurves(QString label = {}) : m_label(std::move(label)) {}

  const QString& label() const { return m_label; }
  void setLabel(const QString& label) { m_label = label; }

  void addStep(const StepEvent& event, bool ensembleMode);
  void addEpoch(const EpochEvent& event, bool ensembleMode);
  /// An evaluation between epoch ends, at its fractional epoch.
  void addEvaluation(const EvaluationEvent& event, bool ensembleMode);
  /// Curves from metrics.csv rows (any member names; "ensemble" maps to kEnsemble).
  /// `recordedStepsPerEpoch` (summary.json's; 0: none) places evaluations between epoch
  /// ends, as stepsPerEpochOf says.
  static RunCurves fromRows(const std::vector<MetricsRow>& rows, const QString& label,
                            int64_t recordedStepsPerEpoch = 0);

  /// Members with curves, the ensemble (kEnsemble) first when present.
  QVector<int> members() const;
  const Series& series(Metric metric, int member) const;
  bool isEmpty() const { return m_series.isEmpty(); }
  /// Training steps per epoch (0 until known: after the first epoch, or from metrics.csv).
  double stepsPerEpoch() const { return m_stepsPerEpoch; }
  void setStepsPerEpoch(double steps) { m_stepsPerEpoch = steps; }
  /// Total points over all series (tests and status use it).
  qsizetype pointCount() const;

 private:
  void add(Metric metric, int member, double x, double y);
  void addTest(const EvaluationResult& test, double x, bool ensembleMode);

  QString m_label;
  double m_stepsPerEpoch = 0;
  QMap<int, std::array<Series, kMetricCount>> m_series;
};

}  // namespace ensemble::ui
