// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Which of the Runs list's eighteen columns show, and in what order. By default the results
// (test accuracy and NLL) come right after the status: at the window's 1400 px they had been
// the fourteenth and fifteenth columns, out of sight to the right of the settings. A right-click
// on the header shows or hides a column (the run's name always shows) and puts them back as
// they were; a column's header dragged sideways moves it. The choice comes back at the next
// start, kept by the columns' names so that a column added later takes its default place.
#include <QObject>

class QHeaderView;

namespace ensemble::ui {

class RunColumns final : public QObject {
  Q_OBJECT
  Q_DISABLE_COPY_MOVE(RunColumns)

 public:
  /// Arranges `header` (the Runs list's, RunsModel's columns) as last chosen, or by default,
  /// and gives it the menu that changes the arrangement.
  explicit RunColumns(QHeaderView* header);

  /// Every column shown, in the default order (the header menu's last entry).
  void restoreDefaults();

 private:
  void arrangeByDefault();
  void restoreChosen();
  void keepChosen() const;

  QHeaderView* m_header;
  bool m_arranging = false;  // moves made here are not the user's: not kept as a choice
};

}  // namespace ensemble::ui
