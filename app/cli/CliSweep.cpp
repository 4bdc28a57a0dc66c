// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/CliSweep.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/cli/CliTraining.h"
#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/config/ConfigFields.h"
#include "core/data/DatasetSource.h"
#include "core/io/AtomicFile.h"
#include "core/io/Checkpoint.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/runs/Sweep.h"
#include "core/train/SweepCheck.h"
#include "core/train/Trainer.h"

namespace ensemble::cli {
namespace {

/// Refuses a train flag for a setting a grid also sets: the grid's values would replace
/// the flag's in every job, so the flag would be dropped without a word.
void refuseFlagsTheGridSets(const CliOptions& options, const std::vector<SweepAxis>& grid,
                            const std::vector<std::string>& gridTexts) {
  for (std::size_t a = 0; a < grid.size(); ++a) {
    for (const std::string& key : grid[a].keys) {
      const ConfigField* field = configFieldByKey(key);
      if (!field || !options.has(field->flag)) continue;
      throw UsageError("--grid " + gridTexts[a] + " and --" + field->flag + " " + options.value(field->flag) +
                       " both set " + key + "; drop one of the two (the grid gives each job its own " + key +
                       ", the flag gives every job the same)");
    }
  }
}

/// Refuses a key of the --config file that a grid also sets, as refuseFlagsTheGridSets
/// refuses a flag: the grid's values would replace the file's without a word. Called once
/// configFromOptions has read the file (and said what is wrong with one it cannot read).
void refuseConfigKeysTheGridSets(const CliOptions& options, const std::vector<SweepAxis>& grid,
                                 const std::vector<std::string>& gridTexts) {
  if (!options.has("config")) return;
  const nlohmann::json file = nlohmann::json::parse(readWholeFile(options.value("config")), nullptr, false);
  if (!file.is_object()) return;
  for (std::size_t a = 0; a < grid.size(); ++a) {
    for (const std::string& key : grid[a].keys) {
      if (!file.contains(key)) continue;
      throw UsageError("--grid " + gridTexts[a] + " and --config " + options.value("config") + " (\"" + key +
                       "\": " + file.at(key).dump() + ") both set " + key +
                       "; drop one of the two (the grid gives each job its own " + key +
                       ", the file gives every job the same)");
    }
  }
}

/// The sweep the flags describe, every job checked; refused before anything is written.
Sweep planFromOptions(const CliOptions& options) {
  std::vector<SweepAxis> grid;
  const std::vector<std::string> gridTexts = options.values("grid");
  for (const std::string& axis : gridTexts) grid.push_back(parseSweepAxis(axis));
  // Two --grid for one setting: a slip in what was typed, as a value given twice is.
  for (std::size_t a = 0; a < grid.size(); ++a) {
    for (std::size_t b = 0; b < a; ++b) {
      for (const std::string& key : grid[a].keys) {
        if (!grid[b].sets(key)) continue;
        const bool paired = grid[a].keys.size() > 1 || grid[b].keys.size() > 1;
        throw UsageError("--grid " + gridTexts[b] + " and --grid " + gridTexts[a] + " both set " + key +
                         (paired ? "; a setting is in one --grid only, alone (" + key + "=V1,V2,...) or paired"
                                 : "; give its values in one --grid (" + key + "=V1,V2,...)"));
      }
    }
  }
  refuseFlagsTheGridSets(options, grid, gridTexts);
  // A dataset folder and init_from's files as absolute paths, as config.json records them:
  // sweep --resume may run from another working directory.
  ExperimentConfig base = configFromOptions(options);
  refuseConfigKeysTheGridSets(options, grid, gridTexts);
  base.dataset = recordedDatasetSpec(base.dataset);
  base.initFrom = base.absoluteInitFrom();
  for (SweepAxis& axis : grid) {
    for (std::vector<nlohmann::json>& point : axis.points) {
      for (std::size_t k = 0; k < axis.keys.size(); ++k) {
        nlohmann::json& value = point[k];
        if (!value.is_string()) continue;
        if (axis.keys[k] == "dataset") value = recordedDatasetSpec(value.get<std::string>());
        if (axis.keys[k] == "init_from") {
          ExperimentConfig files;
          files.initFrom = value.get<std::string>();
          value = files.absoluteInitFrom();
        }
      }
    }
  }
  // A value given twice is a slip in what was typed (planSweep refuses it too, for the
  // window): a usage error here, checked after the folders were made absolute (a and ./a).
  for (const SweepAxis& axis : grid) {
    if (const std::string why = whyValuesRepeat(axis); !why.empty()) throw UsageError(why);
  }
  Sweep sweep = planSweep(base, grid);
  // planSweep checks each job's settings alone; a clash of settings with the devices
  // (mode single on cpu*2), an init_from file that is not there or a batch larger than the
  // training set would otherwise fail only when its job starts, after the jobs before it trained.
  checkSweepJobs(sweep);
  return sweep;
}

/// Whether `run` is a folder a job began (it wrote config.json), so it goes on from there.
bool begun(const std::string& run) {
  std::error_code ec;
  return std::filesystem::exists(RunDirectory(run).configPath(), ec);
}

bool hasCheckpoint(const std::string& run) { return holdsACheckpoint(RunDirectory(run).checkpointsPath()); }

/// Trains one job: afresh, or on from its checkpoint when an earlier attempt began it
/// (from step 0 when it was killed before its first checkpoint).
RunFinishedEvent runJob(const Sweep& sweep, const SweepJob& job, const std::string& run) {
  std::unique_ptr<Trainer> trainer;
  // Either way a job another process is training now is refused before anything of it is
  // read or removed (Trainer::open, clearJobWithoutCheckpoint).
  if (begun(run) && hasCheckpoint(run)) {
    trainer = Trainer::open(run);
    if (trainer->globalStep() >= trainer->config().epochs * trainer->stepsPerEpoch()) {
      RunFinishedEvent done;  // finished, but the sweep was stopped before it said so
      done.status = RunStatus::Completed;
      done.runDirectory = run;
      return done;
    }
  } else {
    clearJobWithoutCheckpoint(run);
    trainer = Trainer::create(sweep.configOf(job), run);
  }
  return trainAndReport(*trainer);
}

void printTable(const Sweep& sweep, const std::string& folder) {
  std::fprintf(stderr, "\nsweep %s:\n", folder.c_str());
  for (const SweepJob& job : sweep.jobs) {
    std::string score;
    if (const std::optional<double> accuracy = jobTestAccuracy(folder, job)) {
      char text[64];
      std::snprintf(text, sizeof text, "test accuracy %.4f", *accuracy);
      score = text;
    }
    // A failed job's message in place of a score: a partial run's accuracy would read as its result.
    std::fprintf(stderr, "  %-40s %-10s %s\n", job.name.c_str(), jobStatusName(job.status).c_str(),
                 job.status == JobStatus::Failed ? inFlags(job.message).c_str() : score.c_str());
  }
}

}  // namespace

int commandSweep(const CliOptions& options) {
  const bool resuming = options.has("resume");
  if (resuming && options.values("grid").size()) {
    throw UsageError("sweep --resume continues the grid its sweep.json records; give --resume DIR alone");
  }
  // A setting's flag beside --resume would be dropped without a word: the jobs' settings are
  // the sweep's own.
  for (const ConfigField& field : configFields()) {
    if (resuming && options.has(field.flag)) {
      throw UsageError("sweep --resume continues the settings its sweep.json records; --" + std::string(field.flag) +
                       " would change nothing: give --resume DIR alone, or start a new sweep with it");
    }
  }
  if (!resuming && !options.has("grid")) {
    throw UsageError("sweep needs --grid SETTING=V1,V2 (e.g. --grid lr=0.05,0.1), or --resume DIR");
  }
  std::string folder;
  Sweep sweep;
  std::optional<RunWriterLock> lock;  // one process runs a sweep: two would each mark the other's job failed
  if (resuming) {
    folder = options.value("resume");
    lock = lockSweep(folder);  // first: sweep.json is read as the process that held it left it
    sweep = readSweep(folder);
    for (const SweepJob& failed : retryFailedJobs(sweep)) {
      std::fprintf(stderr, "ensemble-lab-cli: job %s failed last time (%s); trying it again\n", failed.name.c_str(),
                   inFlags(failed.message).c_str());
    }
  } else {
    sweep = planFromOptions(options);
    folder = options.has("out") ? options.value("out")
                                : RunDirectory::defaultRunsRoot() + "/" + RunDirectory::newRunName("sweep", "grid");
    if (holdsSweep(folder)) {
      throw ConfigError("folder " + folder + " already holds a sweep; choose another --out, or continue it with "
                        "`ensemble-lab-cli sweep --resume " + folder + "`");
    }
    // Its jobs' folders and sweep.json would be mixed with a run's files, or with others.
    const RunDirectory target(folder);
    if (target.holdsARun()) throw ConfigError("folder " + folder + " is a run folder; choose another --out for the sweep");
    if (const std::string why = target.whyNotANewRunFolder(); !why.empty()) {
      throw ConfigError(why + "; choose another --out for the sweep (a new or empty folder)");
    }
    writeSweep(folder, sweep);
    lock = lockSweep(folder);
    std::fprintf(stderr, "ensemble-lab-cli: sweep of %zu jobs in %s\n", sweep.jobs.size(), folder.c_str());
  }

  catchStopSignals();  // a signal between jobs (or while one loads its data) stops the sweep too
  const auto stopped = [&folder] {
    std::fprintf(stderr, "ensemble-lab-cli: sweep stopped; continue it with: ensemble-lab-cli sweep --resume %s\n",
                 folder.c_str());
    return kExitInterrupted;
  };
  for (std::size_t j = 0; j < sweep.jobs.size(); ++j) {
    SweepJob& job = sweep.jobs[j];
    if (job.status == JobStatus::Completed && !begun(folder + "/" + job.name)) {
      // Its folder was removed: the table would show it completed with no score, so it
      // trains again (sweep.json has all it needs).
      std::fprintf(stderr, "ensemble-lab-cli: job %s completed, but its run folder is gone; training it again\n",
                   job.name.c_str());
      job.status = JobStatus::Pending;
    }
    if (job.status == JobStatus::Completed || job.status == JobStatus::Failed) continue;
    if (stopSignalled()) return stopped();  // the job stays as it was, for --resume
    std::fprintf(stderr, "ensemble-lab-cli: job %zu of %zu: %s\n", j + 1, sweep.jobs.size(), job.name.c_str());
    job.status = JobStatus::Running;
    job.message.clear();
    writeSweep(folder, sweep);
    RunFinishedEvent finished;
    try {
      finished = runJob(sweep, job, folder + "/" + job.name);
    } catch (...) {  // refused at its start (its dataset, its devices): recorded, and on to the next
      finished.status = RunStatus::Failed;
      finished.message = describeCurrentException();
      std::fprintf(stderr, "ensemble-lab-cli: error: %s\n", inFlags(finished.message).c_str());
    }
    job.status = finished.status == RunStatus::Completed ? JobStatus::Completed
                 : finished.status == RunStatus::Stopped ? JobStatus::Stopped
                                                         : JobStatus::Failed;
    job.message = finished.message;
    writeSweep(folder, sweep);
    if (job.status == JobStatus::Stopped) return stopped();
  }
  printTable(sweep, folder);
  for (const SweepJob& job : sweep.jobs) {
    if (job.status == JobStatus::Failed) return 1;
  }
  return 0;
}

}  // namespace ensemble::cli
