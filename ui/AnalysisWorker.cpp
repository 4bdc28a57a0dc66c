// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/AnalysisWorker.h"

#include <QFileInfo>

#include "core/common/ErrorMessage.h"
#include "core/train/RunAnalysis.h"
#include "ui/EngineMessage.h"

namespace ensemble::ui {
namespace {

/// Thrown between two steps of a job once the user has cancelled it.
struct Cancelled {};

void stopIfCancelled(const std::shared_ptr<std::atomic<bool>>& cancel) {
  if (cancel->load()) throw Cancelled{};
}

QString runName(const QString& directory) { return QFileInfo(directory).fileName(); }

}  // namespace

template <typename Job>
void AnalysisWorker::guarded(const std::shared_ptr<std::atomic<bool>>& cancel, Job job) {
  try {
    job();
    emit jobEnded(false, {});
  } catch (const Cancelled&) {
    emit jobEnded(true, {});
  } catch (...) {
    emit jobEnded(cancel->load(), inLabels(describeCurrentException()));
  }
}

void AnalysisWorker::sweepShift(const QStringList& runDirectories, ShiftKind kind, const std::vector<double>& levels,
                                const std::shared_ptr<std::atomic<bool>>& cancel) {
  guarded(cancel, [&] {
    const int total = int(runDirectories.size() * levels.size());
    int done = 0;
    for (const QString& directory : runDirectories) {
      emit progress(done, total, tr("Opening %1…").arg(runName(directory)));
      const auto run = RunAnalysis::open(directory.toStdString());
      ShiftCurve curve{directory, kind, {}, {}};
      try {
        for (const double level : levels) {
          stopIfCancelled(cancel);
          emit progress(done, total, tr("%1: %2 %3…").arg(runName(directory), QString::fromStdString(shiftKindName(kind))).arg(level));
          curve.results.push_back(run->evaluate(DatasetShift{kind, level}));
          curve.levels.push_back(level);
          emit progress(++done, total, {});
        }
      } catch (const Cancelled&) {
        if (!curve.levels.empty()) emit shiftCurveReady(curve);  // the levels done so far still show
        throw;
      }
      emit shiftCurveReady(curve);
    }
  });
}

template <typename Work>
void AnalysisWorker::eachRun(const QStringList& runDirectories, const std::shared_ptr<std::atomic<bool>>& cancel,
                             const QString& what, Work work) {
  const int total = 2 * int(runDirectories.size());
  int done = 0;
  for (const QString& directory : runDirectories) {
    emit progress(done++, total, tr("Opening %1…").arg(runName(directory)));
    const auto run = RunAnalysis::open(directory.toStdString());
    stopIfCancelled(cancel);
    emit progress(done++, total, tr("%1: %2…").arg(runName(directory), what));
    work(directory, *run);  // its result shows while the next run is opened
    emit progress(done, total, {});
    stopIfCancelled(cancel);
  }
}

void AnalysisWorker::scoreOutOfDistribution(const QStringList& runDirectories, const QString& dataset,
                                            const std::shared_ptr<std::atomic<bool>>& cancel) {
  guarded(cancel, [&] {
    eachRun(runDirectories, cancel, tr("scoring %1 as out-of-distribution").arg(dataset),
            [&](const QString& directory, RunAnalysis& run) {
              emit outOfDistributionReady({directory, dataset, run.evaluateOutOfDistribution(dataset.toStdString())});
            });
  });
}

void AnalysisWorker::inspect(const QStringList& runDirectories, const std::shared_ptr<std::atomic<bool>>& cancel) {
  guarded(cancel, [&] {
    eachRun(runDirectories, cancel, tr("predicting every test image"), [&](const QString& directory, RunAnalysis& run) {
      auto inspection = std::make_shared<Inspection>();
      inspection->runDirectory = directory;
      inspection->dataset = QString::fromStdString(run.config().dataset);
      inspection->predictions = run.predict();
      inspection->verdicts = judgeImages(inspection->predictions);
      inspection->images = run.testImages();
      emit inspectionReady(std::shared_ptr<const Inspection>(std::move(inspection)));
    });
  });
}

}  // namespace ensemble::ui
