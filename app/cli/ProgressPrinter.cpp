// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/ProgressPrinter.h"

#include <unistd.h>

#include <string>

#include "core/common/TextFormat.h"
#include "core/config/ConfigFields.h"

namespace ensemble::cli {
ProgressPrinter::ProgressPrinter(std::FILE* stream, int processRank)
    : m_stream(stream), m_live(::isatty(::fileno(stream)) != 0), m_processRank(processRank) {}

void ProgressPrinter::onRunStarted(const RunStartedEvent& event) {
  m_ensemble = event.config.mode == TrainingMode::Ensemble && event.replicas > 1;
  // In a group this process's devices are a part: said with the whole, so that a rank of a
  // two-process data-parallel run does not read as one model on one CPU.
  const std::string group = event.processes > 1 ? " (rank " + std::to_string(m_processRank) + " of " +
                                                      std::to_string(event.processes) + " processes, " +
                                                      std::to_string(event.replicas) + " replicas in all)"
                                                : "";
  std::fprintf(m_stream,
               "%s %s %s on %s%s: %lld epoch%s of %lld step%s%s\n"
               "  data: %s, %lld training image%s of %lldx%lld, %lld class%s%s\n"
               "  run folder: %s\n",
               event.startStep > 0 ? "resuming" : "training", modeName(event.config.mode).c_str(),
               modelName(event.config.model).c_str(), event.devices.c_str(), group.c_str(),
               static_cast<long long>(event.config.epochs),
               event.config.epochs == 1 ? "" : "s", static_cast<long long>(event.stepsPerEpoch),
               event.stepsPerEpoch == 1 ? "" : "s",
               event.startStep > 0 ? (" from step " + std::to_string(event.startStep)).c_str() : "",
               event.config.dataset.c_str(), static_cast<long long>(event.trainSamples),
               event.trainSamples == 1 ? "" : "s", static_cast<long long>(event.imageHeight),
               static_cast<long long>(event.imageWidth), static_cast<long long>(event.classes),
               event.classes == 1 ? "" : "es",
               // A limit above the set's size trains on all of it: said, since config.json keeps the number asked.
               event.config.trainLimit > event.trainSamples
                   ? (" (all of them: --train-limit " + std::to_string(event.config.trainLimit) + " is more than it holds)").c_str()
                   : "",
               // Another rank's own path names no folder: it writes none (rank 0 writes --out).
               m_processRank == 0 ? event.runDirectory.c_str()
                                  : (event.rankZerosFolder + ", rank 0's (this rank writes none)").c_str());
  for (const std::string& notice : event.notices) {
    std::fprintf(m_stream, "ensemble-lab-cli: warning: %s\n", phraseMessage(notice, FieldNaming::Flags).c_str());
  }
  std::fflush(m_stream);
}

namespace {

/// "  lr 0.0734" where the step's rate varies (a warmup or a schedule), else nothing.
std::string rateText(const StepEvent& event) {
  if (!event.learningRate) return {};
  char text[32];
  std::snprintf(text, sizeof text, "  lr %.4g", *event.learningRate);
  return text;
}

}  // namespace

void ProgressPrinter::onStep(const StepEvent& event) {
  if (event.logged) m_lastLogged = event.ensemble;
  const auto now = std::chrono::steady_clock::now();
  const bool last = event.stepInEpoch == event.stepsPerEpoch;
  const std::string rate = rateText(event);
  if (m_live) {
    if (now - m_lastPrint < std::chrono::milliseconds(100) && !last) return;
    constexpr int kWidth = 24;
    const int filled = int(kWidth * event.stepInEpoch / std::max<int64_t>(1, event.stepsPerEpoch));
    std::string bar(std::size_t(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(m_stream,
                 "\r\033[Kepoch %lld/%lld [%s] step %lld/%lld  %s %.4f  acc %.1f%%%s  %.0f img/s  ETA %s",
                 static_cast<long long>(event.epoch), static_cast<long long>(event.epochs),
                 bar.c_str(), static_cast<long long>(event.stepInEpoch),
                 static_cast<long long>(event.stepsPerEpoch), m_ensemble ? "ens. nll" : "loss",
                 m_lastLogged.loss, 100 * m_lastLogged.accuracy, rate.c_str(), event.imagesPerSecond,
                 formatDuration(event.etaSeconds).c_str());
    m_barShown = true;
  } else {
    if (!event.logged || (now - m_lastPrint < std::chrono::seconds(5) && !last)) return;
    std::fprintf(m_stream, "epoch %lld/%lld step %lld/%lld  %s %.4f  acc %.1f%%%s  %.0f img/s  ETA %s\n",
                 static_cast<long long>(event.epoch), static_cast<long long>(event.epochs),
                 static_cast<long long>(event.stepInEpoch),
                 static_cast<long long>(event.stepsPerEpoch), m_ensemble ? "ens. nll" : "loss",
                 m_lastLogged.loss, 100 * m_lastLogged.accuracy, rate.c_str(), event.imagesPerSecond,
                 formatDuration(event.etaSeconds).c_str());
  }
  m_lastPrint = now;
  std::fflush(m_stream);
}

void ProgressPrinter::onEpoch(const EpochEvent& event) {
  endBar();
  std::fprintf(m_stream, "epoch %lld/%lld done in %s: ", static_cast<long long>(event.epoch),
               static_cast<long long>(event.epochs), formatDuration(event.epochSeconds).c_str());
  printTestAccuracy(event.test);
}

void ProgressPrinter::onEvaluation(const EvaluationEvent& event) {
  endBar();
  std::fprintf(m_stream, "step %lld (epoch %.2f) after %s of training: ", static_cast<long long>(event.globalStep),
               event.epochPosition(), formatDuration(event.elapsedSeconds).c_str());
  printTestAccuracy(event.test);
}

void ProgressPrinter::printTestAccuracy(const EvaluationResult& test) {
  std::string members;
  for (const auto& m : test.members) {
    char text[16];
    std::snprintf(text, sizeof text, "%s%.2f%%", members.empty() ? "" : " ", 100 * m.accuracy);
    members += text;
  }
  std::fprintf(m_stream, "test accuracy %s", test.members.size() > 1 ? ("members " + members).c_str() : members.c_str());
  if (test.members.size() > 1) {
    std::fprintf(m_stream, ", ensemble %.2f%% (nll %.4f)", 100 * test.ensemble.accuracy, test.ensemble.nll);
  }
  std::fprintf(m_stream, "\n");
  std::fflush(m_stream);
}

void ProgressPrinter::onPaused(bool paused) {
  endBar();
  std::fprintf(m_stream, paused ? "paused\n" : "resumed\n");
}

void ProgressPrinter::onRunFinished(const RunFinishedEvent&) { endBar(); }

void ProgressPrinter::endBar() {
  if (m_barShown) std::fprintf(m_stream, "\n");
  m_barShown = false;
}

}  // namespace ensemble::cli
