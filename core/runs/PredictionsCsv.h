// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// predictions.csv: one row per image and per model,
//   index,label,model,p0,...,p{C-1}
// model is member-0 ... member-{N-1}, then ensemble (the mean of the members'
// probabilities). Probabilities are printed with 9 significant digits, which float32
// probabilities need to round-trip, so every figure recomputes from the file to 1e-6.
#include <string>

#include "core/metrics/Predictions.h"

namespace ensemble {

/// The whole file's text.
std::string predictionsCsv(const Predictions& predictions);
/// Writes it to `path` atomically. Throws IoError.
void writePredictionsCsv(const Predictions& predictions, const std::string& path);

}  // namespace ensemble
