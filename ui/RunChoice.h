// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A run as the Uncertainty view offers it: its folder and how to name it in legends.
#include <QString>
#include <QVector>

namespace ensemble::ui {

struct RunChoice {
  QString directory;
  QString label;  ///< e.g. "ensemble of 4 (cnn)": what the legends say
  QString dataset;  ///< the dataset it trained on (a name or folder); empty: unknown
};

using RunChoices = QVector<RunChoice>;

/// How many selected runs a page compares (side by side or overlaid): the first two.
constexpr int kComparedRuns = 2;

}  // namespace ensemble::ui
