// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the plots draw for the selected runs: each run as itself, except that selected runs
// of one seed group (two seeds or more, none training) are drawn as the group's mean and
// band (SeedGroups.h). A run repeating a seed already in its group is drawn as itself.
#include <QHash>
#include <QVector>
#include <memory>

#include "ui/RunCurves.h"
#include "ui/SeedGroups.h"

namespace ensemble::ui {

struct RunRecord;

struct PlotSelection {
  QVector<std::shared_ptr<const RunCurves>> runs;
  QVector<std::shared_ptr<const SeedGroupCurves>> groups;
  /// Each selected run's place in the plots' palette (runColor): its own line's index in
  /// `runs`, or its group's, which come after the runs.
  QHash<const RunRecord*, int> colorIndex;
};

/// `selected` in the run list's order (newest first), each with its curves loaded;
/// `groupSeeds`: the panel's "Group seeds" box.
PlotSelection plotSelection(const QVector<const RunRecord*>& selected, bool groupSeeds);

}  // namespace ensemble::ui
