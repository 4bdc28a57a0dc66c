// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the Uncertainty view asks the engine for, as values that cross from the analysis
// thread into the window in queued signals. Torch-free.
#include <QMetaType>
#include <QString>
#include <memory>
#include <vector>

#include "core/data/DatasetShift.h"
#include "core/data/ImageSet.h"
#include "core/metrics/EvaluationResult.h"
#include "core/metrics/OodResult.h"
#include "core/metrics/PredictionAnalysis.h"

namespace ensemble::ui {

/// One run evaluated at each level of one kind of dataset shift (Ovadia et al.'s figure).
struct ShiftCurve {
  QString runDirectory;
  ShiftKind kind = ShiftKind::Rotate;
  std::vector<double> levels;
  std::vector<EvaluationResult> results;  ///< one per level, in order
};

/// A run's out-of-distribution scores against one dataset.
struct OutOfDistribution {
  QString runDirectory;
  QString dataset;  ///< as the user chose it (a name or a folder)
  OodResult result;
};

/// A run's predictions on its test set with the images, for the confusion matrix and the
/// gallery.
struct Inspection {
  QString runDirectory;
  QString dataset;  ///< the run's dataset (names the classes)
  Predictions predictions;
  std::vector<ImageVerdict> verdicts;
  ImageSet images;
};

}  // namespace ensemble::ui

Q_DECLARE_METATYPE(ensemble::ui::ShiftCurve)
Q_DECLARE_METATYPE(ensemble::ui::OutOfDistribution)
Q_DECLARE_METATYPE(std::shared_ptr<const ensemble::ui::Inspection>)
