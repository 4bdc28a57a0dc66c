// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order of the Runs list. Unsorted, runs are listed as their folders lie: newest first
// by name (the engine names a folder by when its run started), a sweep's jobs after the
// sweep's folder in the sweep's order. Sorted by a column, by that column's values, runs
// without one (no test accuracy before the first epoch ends) last either way, and runs of
// equal values in the unsorted order.
#include <QDateTime>
#include <QHash>
#include <QString>
#include <QVariant>

namespace ensemble::ui {

/// Where a run folder lies in the unsorted list: its folder's name in the runs folder, or
/// its sweep's folder's name there and its own in the sweep.
struct ListPlace {
  QString top;
  QString job;  ///< empty for a run at the top
};

/// Finds the places of run folders as they are listed, asking the disk once per parent folder
/// whether it is a sweep's; each run keeps its place, so a sort asks nothing of the disk.
class ListPlaces {
 public:
  ListPlace of(const QString& directory);

 private:
  QHash<QString, bool> m_isSweep;  ///< by parent folder
};

/// True when the run at `a` comes before the one at `b` in the unsorted list.
bool listedBefore(const ListPlace& a, const ListPlace& b);

/// When the run in `directory` started: from the name the engine gave its folder
/// ("YYYYMMDD-HHMMSSmmm-…", local time); for a folder the user named, when its config.json
/// was last written (at the start, and at a resume that changed a setting); invalid when
/// neither says.
QDateTime startOfRun(const QString& directory, qint64 configStampNs);

/// A column's value to sort by: a number (double), a date and time, or text (compared as
/// people read it: "run 9" before "run 10", case aside); invalid for a run without one.
using SortValue = QVariant;

/// -1, 0 or 1 as `a` sorts before, with or after `b` in ascending order; an invalid value
/// after every valid one, in both orders (`descending` says which is asked for).
int compareSortValues(const SortValue& a, const SortValue& b, bool descending);

}  // namespace ensemble::ui
