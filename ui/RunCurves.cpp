// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/RunCurves.h"

#include "core/io/MetricsCsvReader.h"

namespace ensemble::ui {

void RunCurves::add(Metric metric, int member, double x, double y) {
  Series& s = m_series[member][std::size_t(metric)];
  s.x.push_back(x);
  s.y.push_back(y);
}

void RunCurves::addStep(const StepEvent& event, bool ensembleMode) {
  if (!event.logged) return;
  const double x = double(event.globalStep);
  for (int m = 0; m < int(event.members.size()); ++m) {
    add(Metric::TrainLoss, m, x, event.members[std::size_t(m)].loss);
    add(Metric::TrainAccuracy, m, x, event.members[std::size_t(m)].accuracy);
  }
  if (ensembleMode) {
    add(Metric::TrainLoss, kEnsemble, x, event.ensemble.loss);
    add(Metric::TrainAccuracy, kEnsemble, x, event.ensemble.accuracy);
  }
}

void RunCurves::addEpoch(const EpochEvent& event, bool ensembleMode) {
  if (event.epoch > 0) m_stepsPerEpoch = double(event.globalStep) / double(event.epoch);
  addTest(event.test, double(event.epoch), ensembleMode);
}

void RunCurves::addEvaluation(const EvaluationEvent& event, bool ensembleMode) {
  addTest(event.test, event.epochPosition(), ensembleMode);
}

void RunCurves::addTest(const EvaluationResult& test, double x, bool ensembleMode) {
  for (int m = 0; m < int(test.members.size()); ++m) {
    add(Metric::TestLoss, m, x, test.members[std::size_t(m)].loss);
    add(Metric::TestAccuracy, m, x, test.members[std::size_t(m)].accuracy);
  }
  if (ensembleMode) {
    add(Metric::TestLoss, kEnsemble, x, test.ensemble.nll);
    add(Metric::TestAccuracy, kEnsemble, x, test.ensemble.accuracy);
  }
}

RunCurves RunCurves::fromRows(const std::vector<MetricsRow>& rows, const QString& label, int64_t recordedStepsPerEpoch) {
  RunCurves curves(label);
  curves.m_stepsPerEpoch = stepsPerEpochOf(rows, recordedStepsPerEpoch);
  for (const MetricsRow& row : rows) {
    bool numeric = false;
    const int member = row.member == "ensemble" ? kEnsemble : QString::fromStdString(row.member).toInt(&numeric);
    if (row.member != "ensemble" && !numeric) continue;
    if (row.testLoss && row.testAccuracy) {  // an evaluation: by epoch, fractional between epoch ends
      const std::optional<double> x = testEpochPosition(row, curves.m_stepsPerEpoch);
      if (!x) continue;  // between epoch ends of a first epoch that never ended: no axis for it
      curves.add(Metric::TestLoss, member, *x, *row.testLoss);
      curves.add(Metric::TestAccuracy, member, *x, *row.testAccuracy);
    } else if (row.trainLoss && row.trainAccuracy) {
      curves.add(Metric::TrainLoss, member, double(row.step), *row.trainLoss);
      curves.add(Metric::TrainAccuracy, member, double(row.step), *row.trainAccuracy);
    }
  }
  return curves;
}

QVector<int> RunCurves::members() const {
  QVector<int> list = m_series.keys().toVector();  // sorted: kEnsemble (-1) first
  return list;
}

const Series& RunCurves::series(Metric metric, int member) const {
  static const Series empty;
  const auto it = m_series.find(member);
  return it == m_series.end() ? empty : (*it)[std::size_t(metric)];
}

qsizetype RunCurves::pointCount() const {
  qsizetype count = 0;
  for (const auto& metrics : m_series) {
    for (const Series& s : metrics) count += s.x.size();
  }
  return count;
}

}  // namespace ensemble::ui
