// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-runs-bench: the window's run list on a runs folder of many runs. Copies one
// real run (config.json with its own learning rate, summary.json, metrics.csv; checkpoints
// are not read to list) into --runs folders, then times what the GUI thread does with them:
// the first scan; a refresh that looks at everything (nothing changed); one on the watcher's
// poll (no path changed); and one after a run's metrics.csv grew (another process training
// it), named as the watcher names it (RunsFolderWatcher asks for a refresh whenever a
// watched file changes, at most twice a second). Each is followed by the watcher's update,
// as MainWindow::refreshRuns does; then a sort by test accuracy (a click on its header), the
// refresh after a run grew with the list so sorted, and the sort back to the folders' order.
// Prints one JSON line, medians of --repeat.
//   ensemble-lab-runs-bench --folder DIR [--runs N] [--repeat N]
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/config/ExperimentConfig.h"
#include "core/train/Trainer.h"
#include "ui/RunsFolderChanges.h"
#include "ui/RunsFolderWatcher.h"
#include "ui/RunsModel.h"

using namespace ensemble;
using namespace ensemble::ui;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

/// A real run written by the engine: the files every listed copy holds.
QString trainSource(const QString& folder) {
  ExperimentConfig config;
  config.dataset = "synthetic";
  config.devices = "cpu*2";
  config.epochs = 2;
  config.trainLimit = 512;
  const QString run = folder + "/source";
  const RunFinishedEvent finished = Trainer::create(config, run.toStdString())->run(nullptr, nullptr);
  return finished.status == RunStatus::Completed ? run : QString();
}

bool copyRuns(const QString& source, const QString& root, int count) {
  QFile config(source + "/config.json");
  if (!config.open(QIODevice::ReadOnly)) return false;
  QJsonObject settings = QJsonDocument::fromJson(config.readAll()).object();
  for (int i = 0; i < count; ++i) {
    const QString target = root + QString("/20260101-%1-ensemble-cnn").arg(i, 9, 10, QChar('0'));
    if (QFileInfo::exists(target + "/config.json")) continue;  // made by an earlier invocation
    if (!QDir().mkpath(target)) return false;
    for (const char* file : {"summary.json", "metrics.csv"}) {
      if (!QFile::copy(source + "/" + file, target + "/" + file)) return false;
    }
    settings["lr"] = 0.01 + 1e-6 * i;  // each its own setup: none folded into a seed group
    QFile copy(target + "/config.json");
    if (!copy.open(QIODevice::WriteOnly) || copy.write(QJsonDocument(settings).toJson()) <= 0) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QCommandLineParser parser;
  const QCommandLineOption folder("folder", "Scratch folder (the runs folder is made in it, and kept for a rerun).", "DIR");
  const QCommandLineOption runs("runs", "Runs to list (default 10000).", "N", "10000");
  const QCommandLineOption repeat("repeat", "Times each refresh is timed (default 5).", "N", "5");
  parser.addOptions({folder, runs, repeat});
  parser.addHelpOption();
  parser.process(app);
  if (!parser.isSet(folder)) {
    std::fprintf(stderr, "ensemble-lab-runs-bench: give --folder DIR\n");
    return 2;
  }
  const QString scratch = parser.value(folder), root = scratch + "/runs";
  const int count = parser.value(runs).toInt(), repeats = std::max(1, parser.value(repeat).toInt());
  const QString source = QFileInfo::exists(scratch + "/source/summary.json") ? scratch + "/source" : trainSource(scratch);
  if (source.isEmpty() || !QDir().mkpath(root) || !copyRuns(source, root, count)) {
    std::fprintf(stderr, "ensemble-lab-runs-bench: could not write the runs under %s\n", qPrintable(scratch));
    return 1;
  }

  RunsModel model;
  RunsFolderWatcher watcher(root);
  QElapsedTimer clock;
  clock.start();
  model.scan(root);
  watcher.watch(model);
  const double scanMs = double(clock.nsecsElapsed()) / 1e6;
  std::vector<double> everything, oneGrew, poll;
  const QString growing = root + QString("/20260101-%1-ensemble-cnn/metrics.csv").arg(count / 2, 9, 10, QChar('0'));
  const auto refreshed = [&](const RunsFolderChanges* changes, std::vector<double>& times) {
    clock.restart();
    const QStringList reread = model.refresh(root, changes);
    watcher.watch(model);
    times.push_back(double(clock.nsecsElapsed()) / 1e6);
    return reread;
  };
  for (int i = 0; i < repeats; ++i) {
    refreshed(nullptr, everything);  // every folder and run looked at, nothing changed
    RunsFolderChanges polled;        // the watcher's poll: no path changed
    polled.poll = true;
    refreshed(&polled, poll);
    QFile metrics(growing);
    if (!metrics.open(QIODevice::Append) || metrics.write("\n") != 1) return 1;
    metrics.close();
    RunsFolderChanges grew;  // as the watcher names it
    grew.paths.insert(QFileInfo(growing).absoluteFilePath());
    if (const QStringList reread = refreshed(&grew, oneGrew); reread.size() != 1) {
      std::fprintf(stderr, "ensemble-lab-runs-bench: %lld runs were read again, not 1\n", static_cast<long long>(reread.size()));
      return 1;
    }
  }
  // A click on the Test acc. header, and a third one back to the folders' order; then, so
  // sorted, a refresh after one run's metrics.csv grew (the list re-sorted after it).
  std::vector<double> sortByAccuracy, sortBack, sortedGrew;
  for (int i = 0; i < repeats; ++i) {
    clock.restart();
    model.sort(RunsModel::TestAccuracy, Qt::DescendingOrder);
    sortByAccuracy.push_back(double(clock.nsecsElapsed()) / 1e6);
    QFile metrics(growing);
    if (!metrics.open(QIODevice::Append) || metrics.write("\n") != 1) return 1;
    metrics.close();
    RunsFolderChanges grew;
    grew.paths.insert(QFileInfo(growing).absoluteFilePath());
    refreshed(&grew, sortedGrew);
    clock.restart();
    model.sort(-1);
    sortBack.push_back(double(clock.nsecsElapsed()) / 1e6);
  }
  QJsonObject result{{"runs", model.rowCount()},
                     {"sort_by_accuracy_ms", median(sortByAccuracy)},
                     {"sort_back_ms", median(sortBack)},
                     {"sorted_refresh_one_grew_ms", median(sortedGrew)},
                     {"scan_ms", scanMs},
                     {"refresh_everything_ms", median(everything)},
                     {"refresh_poll_ms", median(poll)},
                     {"refresh_one_grew_ms", median(oneGrew)},
                     {"repeats", repeats}};
  std::printf("%s\n", QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
  return model.rowCount() >= count ? 0 : 1;
}
