// SPDX-License-Identifier: GPL-3.0-or-later
// ensemble-lab-gui-bench: one run started from the real window, as a person starts it (the
// form's widgets set, Start pressed), the window shown and its plots following the run live.
// Prints one JSON line: the wall time from pressing Start to the run's end, and the
// engine's own training clock and throughput from the run's summary. bench/gui_vs_cli.py
// runs it under Xvfb, alternating with the same run from ensemble-lab-cli.
//   ensemble-lab-gui-bench --runs DIR [--epochs N] [--train-limit N] [--cpu-replicas N]
//                          [--batch-size N] [--eval-every N]
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSpinBox>
#include <cstdio>

#include "ui/ExperimentForm.h"
#include "ui/MainWindow.h"
#include "ui/RunController.h"

using namespace ensemble;
using namespace ensemble::ui;

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  // Settings of its own: the form starts from the defaults, and a user's setup is untouched.
  QCoreApplication::setOrganizationName("EnsembleLab-bench");
  QCoreApplication::setApplicationName("ensemble-lab-gui-bench");
  QCommandLineParser parser;
  const QCommandLineOption runs("runs", "Runs folder (the window lists it; the run is written there).", "DIR");
  const QCommandLineOption epochs("epochs", "Epochs (default 1).", "N", "1");
  const QCommandLineOption trainLimit("train-limit", "First N training images (default: all).", "N", "0");
  const QCommandLineOption replicas("cpu-replicas", "CPU replicas: ensemble members (default 4).", "N", "4");
  const QCommandLineOption batch("batch-size", "Per-member batch (default 128).", "N", "128");
  const QCommandLineOption evalEvery("eval-every", "Also evaluate every N steps (default: epoch ends).", "N", "0");
  parser.addOptions({runs, epochs, trainLimit, replicas, batch, evalEvery});
  parser.addHelpOption();
  parser.process(app);
  if (!parser.isSet(runs)) {
    std::fprintf(stderr, "ensemble-lab-gui-bench: give --runs DIR\n");
    return 2;
  }

  MainWindow window(parser.value(runs));
  window.resize(1400, 900);
  window.show();
  ExperimentForm* form = window.form();
  form->datasetBox()->setCurrentIndex(form->datasetBox()->findData("fashion-mnist"));
  form->modeBox()->setCurrentIndex(form->modeBox()->findData("ensemble"));
  form->cpuReplicasBox()->setValue(parser.value(replicas).toInt());
  form->batchSizeBox()->setValue(parser.value(batch).toInt());
  form->epochsBox()->setValue(parser.value(epochs).toInt());
  form->trainLimitBox()->setValue(parser.value(trainLimit).toInt());
  form->evalEveryBox()->setValue(parser.value(evalEvery).toInt());
  if (!window.startAction()->isEnabled()) {
    std::fprintf(stderr, "ensemble-lab-gui-bench: the form refuses these settings\n");
    return 2;
  }

  RunFinishedEvent finished;
  QEventLoop untilFinished;
  QObject::connect(window.controller(), &RunController::runFinished, &untilFinished,
                   [&](const RunFinishedEvent& event) {
                     finished = event;
                     untilFinished.quit();
                   });
  QElapsedTimer wall;
  wall.start();
  window.startAction()->trigger();
  untilFinished.exec();
  const double wallSeconds = double(wall.nsecsElapsed()) / 1e9;

  QJsonObject result{{"side", "gui"},
                     {"status", QString::fromStdString(runStatusName(finished.status))},
                     {"wall_seconds", wallSeconds},
                     {"run", QString::fromStdString(finished.runDirectory)}};
  if (finished.summary) {
    result["train_seconds"] = finished.summary->trainSeconds;
    result["images_per_second"] = finished.summary->imagesPerSecond;
    if (finished.summary->evaluation) result["ensemble_accuracy"] = finished.summary->evaluation->ensemble.accuracy;
  }
  if (finished.status != RunStatus::Completed) result["message"] = QString::fromStdString(finished.message);
  std::printf("%s\n", QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
  return finished.status == RunStatus::Completed ? 0 : 1;
}
