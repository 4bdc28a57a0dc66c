// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SeedGroups.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace ensemble::ui {

QString seedGroupKey(const ExperimentConfig& config) {
  nlohmann::json json = config.toJson();
  json.erase("seed");
  json.erase("version");
  return QString::fromStdString(json.dump());
}

Band bandOf(const QVector<const Series*>& series) {
  Band band;
  QVector<double> xs;  // every x of any series, once, increasing
  for (const Series* s : series) xs += s->x;
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  QVector<int> at(series.size(), 0);  // each series' position (x values are increasing)
  for (const double x : xs) {
    QVector<double> values;
    for (int s = 0; s < series.size(); ++s) {
      const QVector<double>& sx = series[s]->x;
      while (at[s] < sx.size() && sx[at[s]] < x) ++at[s];
      if (at[s] < sx.size() && sx[at[s]] == x) values.push_back(series[s]->y[at[s]]);
    }
    double sum = 0;
    for (const double v : values) sum += v;
    const double mean = sum / double(values.size());
    double squares = 0;
    for (const double v : values) squares += (v - mean) * (v - mean);
    band.x.push_back(x);
    band.mean.push_back(mean);
    band.std.push_back(values.size() > 1 ? std::sqrt(squares / double(values.size() - 1)) : 0.0);
    band.min.push_back(*std::min_element(values.begin(), values.end()));
    band.max.push_back(*std::max_element(values.begin(), values.end()));
    band.count.push_back(int(values.size()));
  }
  return band;
}

SeedGroupCurves::SeedGroupCurves(QString name, QString label, const QVector<std::shared_ptr<const RunCurves>>& runs)
    : m_name(std::move(name)), m_label(std::move(label)), m_runCount(int(runs.size())) {
  for (const auto& run : runs) m_stepsPerEpoch = std::max(m_stepsPerEpoch, run->stepsPerEpoch());
  for (int m = 0; m < kMetricCount; ++m) {
    QVector<const Series*> series;
    for (const auto& run : runs) {
      const QVector<int> members = run->members();
      if (members.isEmpty()) continue;
      // members() lists the ensemble first when there is one; otherwise the only model.
      series.push_back(&run->series(Metric(m), members.front()));
    }
    m_bands[std::size_t(m)] = bandOf(series);
  }
  // Where the training curve's mean goes from every run to fewer: a run ended early.
  const Band& train = m_bands[std::size_t(Metric::TrainLoss)];
  for (int i = 1; i < train.x.size(); ++i) {
    if (train.count[i] < m_runCount && train.count[i - 1] == m_runCount) {
      m_lastCommonStep = train.x[i - 1];
      const QString drop = QCoreApplication::translate("SeedGroupCurves", "; %1 of %2 runs after step %3")
                               .arg(train.count[i])
                               .arg(m_runCount)
                               .arg(train.x[i - 1]);
      // Inside the label's parenthesis when it ends with one: "group A (single, cnn, seeds 0,1; …)".
      if (m_label.endsWith(')')) m_label.insert(m_label.size() - 1, drop);
      else m_label += drop;
      break;
    }
  }
}

}  // namespace ensemble::ui
