// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/SeedGroups.h"

#include <nlohmann/json.hpp>

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
  if (series.isEmpty()) return band;
  // The x of the first series that every other has too (x values are increasing).
  QVector<QVector<double>::const_iterator> at;
  for (const Series* s : series) at.push_back(s->x.cbegin());
  for (int i = 0; i < series.front()->x.size(); ++i) {
    const double x = series.front()->x[i];
    QVector<double> values{series.front()->y[i]};
    for (int s = 1; s < series.size(); ++s) {
      const QVector<double>& xs = series[s]->x;
      at[s] = std::lower_bound(at[s], xs.cend(), x);
      if (at[s] == xs.cend() || *at[s] != x) break;
      values.push_back(series[s]->y[int(at[s] - xs.cbegin())]);
    }
    if (values.size() != series.size()) continue;
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
}

}  // namespace ensemble::ui
