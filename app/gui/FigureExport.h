// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `ensemble-lab --figures OUTDIR --compare RUN[,RUN] ...`: the Uncertainty view's figures
// for one or two runs, computed and saved without a click (for reports and docs/RESULTS.md).
// The same widgets draw them as in the window, so the files are what a person sees there.
#include <QStringList>

class QCommandLineParser;

namespace ensemble::app {

struct FigureRequest {
  QString outputFolder;
  QStringList runs;     ///< one or two run folders
  QStringList shifts;   ///< KIND:LEVEL,... each
  QString ood;          ///< an out-of-distribution dataset, or empty
};

/// Computes and saves every figure asked for; prints each file written. Returns the exit
/// status: 0, or 1 with the reason on stderr.
int exportFigures(const FigureRequest& request);

}  // namespace ensemble::app
