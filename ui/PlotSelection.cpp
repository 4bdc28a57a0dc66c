// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/PlotSelection.h"

#include <QMap>
#include <QStringList>
#include <algorithm>

#include "ui/RunsModel.h"

namespace ensemble::ui {

PlotSelection plotSelection(const QVector<const RunRecord*>& selected, bool groupSeeds) {
  PlotSelection shown;
  QMap<QString, QVector<const RunRecord*>> grouped;
  // The runs that stand for their seed first (RunRecord::repeatsSeed), so where both are
  // selected the repeat is the one drawn as itself.
  QVector<const RunRecord*> ordered = selected;
  std::stable_partition(ordered.begin(), ordered.end(), [](const RunRecord* record) { return !record->repeatsSeed; });
  for (const RunRecord* record : ordered) {
    // One run per seed joins its group's mean; a run repeating a seed already in it is
    // drawn as itself.
    const bool groupable = groupSeeds && !record->seedGroup.isEmpty() && !record->training;
    const QVector<const RunRecord*> group = groupable ? grouped.value(record->seedGroup) : QVector<const RunRecord*>();
    const bool seedTaken = std::any_of(group.begin(), group.end(),
                                       [&](const RunRecord* other) { return other->config->seed == record->config->seed; });
    if (groupable && !seedTaken) {
      grouped[record->seedGroup].push_back(record);
    } else {
      shown.colorIndex[record] = int(shown.runs.size());
      shown.runs.push_back(record->curves);
    }
  }
  QVector<QVector<const RunRecord*>> groupRuns;  // coloured once every run line is counted
  for (auto it = grouped.begin(); it != grouped.end(); ++it) {
    if (it.value().size() < 2) {  // one run of a group: shown as itself
      shown.colorIndex[it.value().front()] = int(shown.runs.size());
      shown.runs.push_back(it.value().front()->curves);
      continue;
    }
    groupRuns.push_back(it.value());
    QVector<std::shared_ptr<const RunCurves>> members;
    QVector<std::uint64_t> seedValues;
    for (const RunRecord* record : it.value()) {
      members.push_back(record->curves);
      seedValues.push_back(record->config->seed);
    }
    std::sort(seedValues.begin(), seedValues.end());
    QStringList seeds;
    for (const std::uint64_t seed : seedValues) seeds << QString::number(seed);
    const QString name = QObject::tr("group %1").arg(it.key());
    // Named by the setup its seeds share, as a run is: two groups' labels differ where their
    // setups do ("group A (single, cnn)" and "group B (single, cnn)" had said nothing of how).
    const QString label = QObject::tr("%1 (%2, seeds %3)").arg(name, it.value().front()->groupDescription(), seeds.join(','));
    shown.groups.push_back(std::make_shared<SeedGroupCurves>(name, label, members));
  }
  for (int g = 0; g < groupRuns.size(); ++g) {
    for (const RunRecord* record : groupRuns[g]) shown.colorIndex[record] = int(shown.runs.size()) + g;
  }
  return shown;
}

}  // namespace ensemble::ui
