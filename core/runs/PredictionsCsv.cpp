// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/PredictionsCsv.h"

#include <cstdio>

#include "core/io/AtomicFile.h"

namespace ensemble {
namespace {

void appendRow(std::string& text, std::size_t image, int64_t label, const std::string& model,
               const std::vector<float>& probabilities, int64_t classes) {
  char number[32];
  text += std::to_string(image) + ',' + std::to_string(label) + ',' + model;
  for (int64_t k = 0; k < classes; ++k) {
    std::snprintf(number, sizeof number, ",%.9g", double(probabilities[image * std::size_t(classes) + std::size_t(k)]));
    text += number;
  }
  text += '\n';
}

}  // namespace

std::string predictionsCsv(const Predictions& predictions) {
  std::string text = "index,label,model";
  for (int64_t k = 0; k < predictions.classes; ++k) text += ",p" + std::to_string(k);
  text += '\n';
  for (std::size_t image = 0; image < predictions.labels.size(); ++image) {
    const int64_t label = predictions.labels[image];
    for (std::size_t m = 0; m < predictions.members.size(); ++m) {
      appendRow(text, image, label, "member-" + std::to_string(m), predictions.members[m], predictions.classes);
    }
    appendRow(text, image, label, "ensemble", predictions.ensemble, predictions.classes);
  }
  return text;
}

void writePredictionsCsv(const Predictions& predictions, const std::string& path) {
  writeFileAtomically(path, predictionsCsv(predictions));
}

}  // namespace ensemble
