// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliCommands.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "app/cli/CliAnswers.h"
#include "app/cli/CliDevices.h"
#include "app/cli/CliImport.h"
#include "app/cli/CliSweep.h"
#include "app/cli/CliTraining.h"
#include "app/cli/ProgressPrinter.h"
#include "app/cli/RunsArgument.h"
#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/devices/DeviceInventory.h"
#include "core/io/Checkpoint.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/comm/BrokenPipes.h"
#include "core/common/TextFormat.h"
#include "core/runs/RunExport.h"
#include "core/runs/RunSummary.h"
#include "core/runs/Sweep.h"
#include "core/metrics/EvaluationJson.h"
#include "core/metrics/TestSetChange.h"
#include "core/config/ConfigFields.h"
#include "core/runs/PredictionsCsv.h"
#include "core/runs/RunComparison.h"
#include "core/train/RunControl.h"
#include "core/runs/TensorBoardExport.h"
#include "core/train/RunAnalysis.h"
#include "core/train/Trainer.h"

namespace ensemble::cli {
namespace {

constexpr int kExitError = 1;

// The run a stop signal stops, and whether one came: a signal between a sweep's jobs (its
// next job loading its data) finds no run, and must still stop the sweep.
std::atomic<RunControl*> g_control{nullptr};
volatile std::sig_atomic_t g_stopSignalled = 0;
static_assert(std::atomic<RunControl*>::is_always_lock_free, "signal safety needs a lock-free pointer");

extern "C" void handleStopSignal(int) {
  g_stopSignalled = 1;
  if (RunControl* control = g_control.load()) control->requestStopFromSignal();
}

}  // namespace

void catchStopSignals() {
  struct sigaction action {};
  action.sa_handler = handleStopSignal;
  action.sa_flags = SA_RESETHAND;  // a second signal kills, as without the handler
  sigemptyset(&action.sa_mask);
  // A hang-up (the terminal closed, the ssh connection dropped) stops the run as Ctrl-C
  // does: checkpointed, "stopped", resumable. It had killed it, its summary left "running".
  for (const int stop : {SIGINT, SIGTERM, SIGHUP}) sigaction(stop, &action, nullptr);
  // Nor does a reader that went away (`train ... | head`) end the run: its progress lines
  // are then written nowhere, and it trains on to its end (its files say how it went).
  ignoreBrokenPipes();
}

bool stopSignalled() { return g_stopSignalled != 0; }

/// The config of --config (or the defaults) with every config field's flag laid over it.
ExperimentConfig configFromOptions(const CliOptions& options) {
  ExperimentConfig config =
      options.has("config") ? ExperimentConfig::fromFile(options.value("config")) : ExperimentConfig{};
  nlohmann::json flags = nlohmann::json::object();
  for (const ConfigField& field : configFields()) {
    if (options.has(field.flag)) flags[field.key] = field.parseText(options.value(field.flag));
  }
  config.merge(flags, "the command line");
  // An out-of-range value the file gave is named with the file, where it is to be fixed (a
  // flag's is named by its flag when the config is validated).
  for (const ConfigField& field : configFields()) {
    if (!options.has("config") || options.has(field.flag) || !field.check) continue;
    if (const std::string why = field.check(config); !why.empty()) {
      throw ConfigError(options.value("config") + ": " + phraseMessage(why, FieldNaming::Keys));  // as the file names it
    }
  }
  return config;
}

namespace {

/// The process group: torchrun's environment variables, overridden by the flags.
ProcessGroupOptions groupFromOptions(const CliOptions& options) {
  ProcessGroupOptions group;
  group.mergeEnvironment();
  if (options.has("world-size")) group.worldSize = int(parseInteger(options, "world-size"));
  if (options.has("rank")) group.rank = int(parseInteger(options, "rank"));
  if (options.has("master-addr")) group.masterAddr = options.value("master-addr");
  if (options.has("master-port")) group.masterPort = int(parseInteger(options, "master-port"));
  if (options.has("backend")) group.backend = options.value("backend");
  if (options.has("timeout")) group.timeoutSeconds = parseNumber(options, "timeout");
  group.validate();
  return group;
}

void printResult(const RunSummary& summary, const std::string& runDirectory) {
  if (!summary.evaluation) return;
  const EvaluationResult& result = *summary.evaluation;
  for (std::size_t i = 0; i < result.members.size() && result.members.size() > 1; ++i) {
    std::printf("member %zu test accuracy %.4f  loss %.4f\n", i, result.members[i].accuracy, result.members[i].loss);
  }
  const EnsembleScore& e = result.ensemble;
  const bool ensemble = result.members.size() > 1;
  // What a typical member scores (the Flax HOWTO's logged loss is this mean, its pmean), so
  // that what the ensemble adds is read here rather than worked out from summary.json.
  const TestScore& mean = result.meanMember;
  if (ensemble) {
    std::printf("mean member test accuracy %.4f  nll %.4f  brier %.4f  ece %.4f\n", mean.accuracy, mean.loss, mean.brier,
                mean.ece);
  }
  std::printf("%s test accuracy %.4f  nll %.4f  brier %.4f  ece %.4f", ensemble ? "ensemble" : "model", e.accuracy,
              e.nll, e.brier, e.ece);
  if (ensemble) std::printf("  disagreement %.4f", e.disagreement);  // one model has nothing to disagree with
  std::printf("\n");
  if (ensemble) {
    std::printf("the ensemble over its mean member: accuracy %+.4f  nll %+.4f  brier %+.4f  ece %+.4f\n",
                e.accuracy - mean.accuracy, e.nll - mean.loss, e.brier - mean.brier, e.ece - mean.ece);
  }
  std::printf("%.1f images/s over %.1f s of training; run folder %s\n", summary.imagesPerSecond,
              summary.trainSeconds, runDirectory.c_str());
  // Piped, stdout is written only when its buffer fills: a sweep's results had come after
  // its closing table (stderr), instead of after each job.
  std::fflush(stdout);
}

}  // namespace

RunFinishedEvent trainAndReport(Trainer& trainer) {
  RunControl control;
  g_control.store(&control);
  // A sweep's signal while this job loaded: stop at its first step, checkpointed. `train`
  // and `resume` catch signals only from here: before, one ends the process (nothing written).
  if (stopSignalled()) {
    control.requestStopFromSignal();
  } else {
    catchStopSignals();
  }
  ProgressPrinter printer(stderr, trainer.processRank());
  const RunFinishedEvent finished = trainer.run(&printer, &control);
  g_control.store(nullptr);
  const bool leader = trainer.processRank() == 0;
  const std::string rank = leader ? "" : "rank " + std::to_string(trainer.processRank()) + ": ";
  switch (finished.status) {
    case RunStatus::Completed:
      if (leader) {
        printResult(*finished.summary, finished.runDirectory);
      } else {
        std::fprintf(stderr, "ensemble-lab-cli: %sdone; rank 0 wrote the run folder, %s\n", rank.c_str(),
                     trainer.rankZerosFolder().c_str());
      }
      break;
    case RunStatus::Stopped:
      std::fprintf(stderr, "ensemble-lab-cli: %s%s\n", rank.c_str(), inFlags(finished.message).c_str());
      break;
    default:
      std::fprintf(stderr, "ensemble-lab-cli: %serror: %s\n", rank.c_str(), inFlags(finished.message).c_str());
  }
  return finished;
}

void warnOfARowCutShort(const std::string& run, const std::string& whatBecomesOfIt) {
  const std::string metrics = RunDirectory(run).metricsPath();
  const std::optional<TornLine> torn = tornLastLineOfFile(metrics);
  if (!torn) return;
  std::fprintf(stderr, "ensemble-lab-cli: warning: %s ends in a row cut short, line %lld ('%s'); %s\n", metrics.c_str(),
               static_cast<long long>(torn->number), torn->text.c_str(), whatBecomesOfIt.c_str());
}

std::string inFlags(const std::string& message, const std::string& command) {
  std::string output;  // train's (and sweep's) --out DIR is phraseMessage's own
  if (command == "resume") output = "--run DIR";
  if (command == "predict") output = "--out FILE.csv";
  if (command == "export") output = "--to, --table, --curves or --tensorboard";
  return phraseMessage(message, FieldNaming::Flags, output);
}

namespace {

int runTraining(Trainer& trainer) {
  const RunStatus status = trainAndReport(trainer).status;
  return status == RunStatus::Completed ? 0 : status == RunStatus::Stopped ? kExitInterrupted : kExitError;
}

/// The config of a run folder that has a readable config.json but no checkpoint yet.
std::optional<ExperimentConfig> configOfRunWithoutCheckpoint(const std::string& run) {
  const RunDirectory directory(run);
  std::error_code ec;
  if (holdsACheckpoint(directory.checkpointsPath()) || !std::filesystem::exists(directory.configPath(), ec)) {
    return std::nullopt;
  }
  try {
    return ExperimentConfig::fromFile(directory.configPath());
  } catch (const ConfigError&) {
    return std::nullopt;  // not a run we wrote: open() names the missing checkpoint
  }
}

/// Continues `run` from its last checkpoint (from step 0 when it has none yet).
int resumeRun(const std::string& run, const ProcessGroupOptions& group) {
  // Before anything is said or read of it: another process may be training it now.
  RunWriterLock::refuseIfHeldElsewhere(run);
  if (auto config = configOfRunWithoutCheckpoint(run)) {
    // Killed before its first checkpoint: nothing to lose, so start it again as it was.
    std::fprintf(stderr, "ensemble-lab-cli: %s has no checkpoint yet; starting it again from step 0\n", run.c_str());
    auto trainer = Trainer::create(*config, run, nullptr, group);
    return runTraining(*trainer);
  }
  auto trainer = Trainer::open(run, nullptr, group);
  if (trainer->globalStep() >= trainer->config().epochs * trainer->stepsPerEpoch()) {
    const std::string summaryPath = RunDirectory(run).summaryPath();
    const bool summaryReadable = [&] {
      try {
        RunSummary::read(summaryPath);
        return true;
      } catch (const Error&) {
        return false;
      }
    }();
    std::vector<std::string> damaged;
    if (!summaryReadable) damaged.push_back("summary.json");
    for (const std::string& file : trainer->filesToRestore()) damaged.push_back(file);
    if (!damaged.empty()) {
      // A completed run whose summary.json, config.json or metrics.csv is gone, damaged or
      // edited: its last checkpoint holds what the summary says (the state, the last
      // evaluation), the config and a copy of metrics.csv, so a run of no steps writes them.
      const RunFinishedEvent finished = trainer->run(nullptr, nullptr);
      if (finished.status != RunStatus::Completed) {
        std::fprintf(stderr, "ensemble-lab-cli: error: %s\n", inFlags(finished.message).c_str());
        return kExitError;
      }
      std::string files;
      for (std::size_t i = 0; i < damaged.size(); ++i) {
        files += (i == 0 ? "" : i + 1 == damaged.size() ? " and " : ", ") + damaged[i];
      }
      std::fprintf(stderr, "ensemble-lab-cli: run %s had completed, but its %s %s missing, damaged or changed; wrote %s "
                           "again from the last checkpoint\n",
                   run.c_str(), files.c_str(), damaged.size() == 1 ? "was" : "were", damaged.size() == 1 ? "it" : "them");
      return 0;
    }
    std::fprintf(stderr, "ensemble-lab-cli: run %s already completed its %lld epoch%s; nothing to resume\n",
                 run.c_str(), static_cast<long long>(trainer->config().epochs), trainer->config().epochs == 1 ? "" : "s");
    return 0;
  }
  return runTraining(*trainer);  // which says what it mended in the run folder (RunStartedEvent::notices)
}

int commandTrain(const CliOptions& options) {
  const ExperimentConfig config = configFromOptions(options);
  const ProcessGroupOptions group = groupFromOptions(options);
  const std::string out =
      options.has("out") ? options.value("out")
                         : RunDirectory::defaultRunsRoot() + "/" +
                               RunDirectory::newRunName(modeName(config.mode), modelName(config.model));
  std::error_code ec;
  const bool outHoldsARun = std::filesystem::exists(RunDirectory(out).configPath(), ec);
  if (group.restartCount > 0 && options.has("out") && outHoldsARun) {
    // torchrun restarts every rank with the same command line after one failed: the run the
    // failed attempt began goes on from its last checkpoint, as `resume` would.
    std::fprintf(stderr, "ensemble-lab-cli: torchrun restart %d: resuming %s from its last checkpoint\n",
                 group.restartCount, out.c_str());
    return resumeRun(out, group);
  }
  if (group.rank == 0 && outHoldsARun) {
    throw ConfigError("run folder " + out + " already holds a run; choose another --out, or " +
                      "continue it with `ensemble-lab-cli resume --run " + shellWord(out) + "`");
  }
  if (const std::string why = RunDirectory(out).whyNotANewRunFolder(); group.rank == 0 && !why.empty()) {
    throw ConfigError("--out " + why + "; choose a new or empty folder");
  }
  auto trainer = Trainer::create(config, out, nullptr, group);
  return runTraining(*trainer);
}

int commandResume(const CliOptions& options) {
  if (!options.has("run")) throw UsageError("resume needs --run DIR, the run folder to continue");
  if (holdsSweep(options.value("run"))) {
    // Its jobs are runs; the folder itself holds no checkpoint ("start it again" would mislead).
    throw UsageError(options.value("run") + " is a sweep folder: continue the sweep with `ensemble-lab-cli sweep "
                     "--resume " + options.value("run") + "`, or one of its jobs with resume --run " +
                     options.value("run") + "/JOB");
  }
  return resumeRun(options.value("run"), groupFromOptions(options));
}

/// Refuses an output file (`flag`'s) that is one of `runs`' own files, or of any other run's
/// (in a folder above it): written over, the run could no longer be read, resumed or exported.
/// `example`: a name the message suggests beside the run's files.
void refuseToOverwriteARunsFiles(const std::string& output, std::vector<std::string> runs, const char* flag,
                                 const std::string& example = "predictions.csv") {
  if (const std::string owner = RunDirectory::runOwning(output); !owner.empty()) runs.push_back(owner);
  for (const std::string& run : runs) {
    if (!RunDirectory(run).ownsFile(output)) continue;
    throw ConfigError(std::string("--") + flag + " " + output + " is one of run " + run +
                      "'s own files, which writing it would destroy; write it outside the run's config.json, "
                      "metrics.csv, summary.json, checkpoints/ and tensorboard/ (e.g. " + run + "/" + example + ")");
  }
  // Nor a sweep's plan and its jobs' states: `sweep --resume` could no longer read them.
  if (const std::string sweep = sweepOwningFile(output); !sweep.empty()) {
    throw ConfigError(std::string("--") + flag + " " + output + " is the sweep.json of sweep " + sweep +
                      ", its plan and its jobs' states, which writing it would destroy; write it under another name "
                      "(e.g. " + sweep + "/" + example + ")");
  }
}

/// The run `eval` and `predict` open, on the test data their flags name.
std::unique_ptr<RunAnalysis> openToEvaluate(const CliOptions& options) {
  if (!options.has("run")) throw UsageError(options.command + " needs --run DIR, the run folder to evaluate");
  EvaluationData evaluation;
  if (options.has("dataset")) evaluation.dataset = options.value("dataset");
  if (options.has("test-limit")) evaluation.testLimit = parseInteger(options, "test-limit");
  return RunAnalysis::open(options.value("run"), evaluation);
}

/// Says on stderr where a run's own test set is no longer the one it was scored on as it
/// trained (its dataset folder changed since): eval's numbers then differ from summary.json's
/// for that reason alone, which nothing else would tell.
void noteAChangedTestSet(const std::string& run, const EvaluationResult& now) {
  std::optional<RunSummary> summary;
  try {
    summary = RunSummary::read(RunDirectory(run).summaryPath());
  } catch (const std::exception&) {
    return;  // no summary (a run stopped early): nothing to compare with
  }
  if (!summary->evaluation) return;
  if (const std::string note = changedTestSetNote(*summary->evaluation, now); !note.empty()) {
    std::fprintf(stderr, "ensemble-lab-cli: note: %s\n", note.c_str());
  }
}

/// Every level of eval's --shift flags, one flag per kind, in the order given.
std::vector<DatasetShift> shiftsToScore(const CliOptions& options) {
  std::string repeated;
  std::vector<DatasetShift> shifts = shiftsOfFlags(options.values("shift"), repeated);
  if (!repeated.empty()) throw UsageError(repeated);
  return shifts;
}

int commandEval(const CliOptions& options) {
  // Settings are checked before the run is loaded and evaluated.
  const std::vector<DatasetShift> shifts = shiftsToScore(options);
  auto run = openToEvaluate(options);
  const EvaluationResult scored = run->evaluate();
  if (!options.has("dataset") && !options.has("test-limit")) noteAChangedTestSet(options.value("run"), scored);
  nlohmann::json result = toJson(scored);
  if (!shifts.empty()) {
    result["shift"] = nlohmann::json::array();
    for (const DatasetShift& shift : shifts) {
      nlohmann::json level = toJson(run->evaluate(shift));
      result["shift"].push_back({{"kind", shiftKindName(shift.kind)}, {"level", shift.level}, {"members", level["members"]},
                                 {"mean_member", level["mean_member"]}, {"ensemble", level["ensemble"]}});
    }
  }
  if (options.has("ood")) result["ood"] = toJson(run->evaluateOutOfDistribution(options.value("ood")));
  result["run"] = options.value("run");
  result["dataset"] = run->config().dataset;
  result["step"] = run->globalStep();
  std::printf("%s\n", result.dump(2).c_str());
  return 0;
}

int commandPredict(const CliOptions& options) {
  if (!options.has("out")) throw UsageError("predict needs --out FILE.csv, the file to write");
  std::optional<DatasetShift> shift;
  if (options.has("shift")) {
    const std::vector<DatasetShift> levels = parseShifts(options.value("shift"));
    if (levels.size() != 1) throw ConfigError("predict takes one --shift level (KIND:LEVEL), got " + options.value("shift"));
    shift = levels.front();
  }
  auto run = openToEvaluate(options);  // says so first where --run is missing
  refuseToOverwriteARunsFiles(options.value("out"), {options.value("run")}, "out");
  writePredictionsCsv(run->predict(shift), options.value("out"));
  std::fprintf(stderr, "ensemble-lab-cli: wrote %s\n", options.value("out").c_str());
  return 0;
}

/// `export --runs A,B,...`: the comparison table and/or the long-format curves.
int exportSeveralRuns(const CliOptions& options) {
  if (!options.has("table") && !options.has("curves")) {
    throw UsageError("export --runs needs --table FILE.csv (one row per run) or --curves FILE.csv (every curve), or both");
  }
  const std::vector<std::string> runs = runsListed(options.value("runs"));
  for (const char* what : {"table", "curves"}) {
    if (options.has(what)) refuseToOverwriteARunsFiles(options.value(what), runs, what, std::string(what) + ".csv");
  }
  if (options.has("table") && options.has("curves")) {
    std::error_code ec, ec2;
    const auto table = std::filesystem::weakly_canonical(options.value("table"), ec);
    const auto curves = std::filesystem::weakly_canonical(options.value("curves"), ec2);
    if (!ec && !ec2 && table == curves) {  // the curves, written second, would replace the table
      throw ConfigError("--table and --curves name the same file, " + options.value("curves") +
                        "; give each a file of its own");
    }
  }
  for (const std::string& run : runs) warnOfARowCutShort(run, "the export leaves it out");
  // A run that cannot be read is left out, named with why, and the rest written: exit 1 all
  // the same, so a script sees that the file lacks a run it listed.
  bool anyLeftOut = false;
  for (const char* what : {"table", "curves"}) {
    if (!options.has(what)) continue;
    std::vector<RunLeftOut> leftOut;
    if (std::string(what) == "table") writeRunComparison(runs, options.value(what), &leftOut);
    else writeRunCurves(runs, options.value(what), &leftOut);
    for (const RunLeftOut& run : leftOut) {
      std::fprintf(stderr, "ensemble-lab-cli: error: %s leaves out %s: %s\n", options.value(what).c_str(), run.run.c_str(),
                   inFlags(run.why, "export").c_str());
    }
    anyLeftOut = anyLeftOut || !leftOut.empty();
    std::fprintf(stderr, "ensemble-lab-cli: wrote %s (%zu of %zu runs)\n", options.value(what).c_str(),
                 runs.size() - leftOut.size(), runs.size());
  }
  return anyLeftOut ? kExitError : 0;
}

int commandExport(const CliOptions& options) {
  // The two forms' flags mixed: one form's would be dropped without a word (--run's beside --runs were).
  const bool several = options.has("runs") || options.has("table") || options.has("curves");
  const bool one = options.has("run") || options.has("to") || options.has("tensorboard");
  if (several && one) {
    throw UsageError("export takes either --run DIR with --to or --tensorboard (one run's metrics), or --runs DIR,DIR,... "
                     "with --table or --curves (runs side by side), not flags of both; run export once for each");
  }
  if (options.has("runs")) return exportSeveralRuns(options);
  if (!options.has("run")) throw UsageError("export needs --run DIR, the run folder whose metrics to write (or --runs DIR,DIR,...)");
  if (!options.has("to") && !options.has("tensorboard")) {
    throw UsageError("export needs --to FILE.json or FILE.csv, the file to write, or --tensorboard FOLDER");
  }
  if (options.has("to")) refuseToOverwriteARunsFiles(options.value("to"), {options.value("run")}, "to", "metrics-export.json");
  if (options.has("tensorboard")) {  // the log the run writes as it trains: export's would replace it
    refuseToOverwriteARunsFiles(options.value("tensorboard"), {options.value("run")}, "tensorboard", "exported-tensorboard");
    std::error_code ec;
    if (std::filesystem::equivalent(options.value("tensorboard"), options.value("run"), ec) ||
        RunDirectory(options.value("tensorboard")).holdsARun()) {
      // Its event files would lie among a run's own files, where nothing looks for them.
      throw ConfigError("--tensorboard " + options.value("tensorboard") + " is a run folder; name a folder of "
                        "its own (e.g. " + options.value("run") + "/exported-tensorboard)");
    }
  }
  warnOfARowCutShort(options.value("run"), "the export leaves it out");
  if (options.has("to")) {
    exportRunMetrics(options.value("run"), options.value("to"));
    std::fprintf(stderr, "ensemble-lab-cli: wrote %s\n", options.value("to").c_str());
  }
  if (options.has("tensorboard")) {
    const TensorBoardExported exported = exportTensorBoard(options.value("run"), options.value("tensorboard"));
    std::fprintf(stderr, "ensemble-lab-cli: wrote the TensorBoard log to %s (tensorboard --logdir %s)\n",
                 options.value("tensorboard").c_str(), shellWord(options.value("tensorboard")).c_str());
    if (!exported.learningRates) {
      std::fprintf(stderr, "ensemble-lab-cli: note: %s has no config.json, so the log has no train/learning_rate "
                   "(put the run's config.json back and export again to add it)\n", options.value("run").c_str());
    }
  }
  return 0;
}

}  // namespace

int runCommand(const CliOptions& options) {
  try {
    if (answerAboutTheCli(options)) return 0;
    if (options.command == "devices") return commandDevices(options);
    if (options.command == "train") return commandTrain(options);
    if (options.command == "resume") return commandResume(options);
    if (options.command == "eval") return commandEval(options);
    if (options.command == "predict") return commandPredict(options);
    if (options.command == "export") return commandExport(options);
    if (options.command == "sweep") return commandSweep(options);
    if (options.command == "import") return commandImport(options);
  } catch (const UsageError&) {
    throw;  // main says it and exits 2
  } catch (...) {
    const std::string message = inFlags(describeCurrentException(), options.command);
    std::fprintf(stderr, "ensemble-lab-cli: error: %s\n", message.c_str());
    return kExitError;
  }
  return kExitError;
}

}  // namespace ensemble::cli
