// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/RunComparison.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "core/common/CanonicalPath.h"
#include "core/common/Error.h"
#include "core/io/AtomicFile.h"
#include "core/io/MetricsCsvReader.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/config/ExperimentConfig.h"
#include "core/runs/RestorableRunFile.h"
#include "core/runs/RunSummary.h"

namespace ensemble {
namespace {

/// Quoted when it holds a separator, a quote or a line break (RFC 4180).
std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + '"';
}

/// Enough digits to read back the double metrics.csv and summary.json hold.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string number(const std::optional<double>& value) { return value ? number(*value) : std::string(); }

std::string curveModelName(const std::string& member) { return member == "ensemble" ? member : "member-" + member; }

/// Each run's name in the files: its folder's name, or, where two runs' folders share it
/// (job 001 of two sweeps), as much of the path above as tells them apart ("sweep-a/001-…"),
/// so (run, model, step, metric) still names one value. The same run given twice is refused.
std::vector<std::string> distinctRunNames(const std::vector<std::string>& runDirectories) {
  namespace fs = std::filesystem;
  std::vector<std::vector<std::string>> parts;  // each run's path components, the folder's own first
  for (const std::string& directory : runDirectories) {
    const fs::path path = fs::path(canonicalPath(directory)).lexically_normal();
    std::vector<std::string> components;
    for (const fs::path& part : path) {
      if (!part.empty() && part != "/") components.insert(components.begin(), part.string());
    }
    for (const auto& earlier : parts) {
      if (earlier == components) {
        throw ConfigError("the run " + directory + " is listed twice; give each run once");
      }
    }
    parts.push_back(std::move(components));
  }
  std::vector<std::size_t> depth(parts.size(), 1);
  const auto nameAt = [&](std::size_t run) {
    std::string name;
    for (std::size_t i = std::min(depth[run], parts[run].size()); i-- > 0;) name += parts[run][i] + (i ? "/" : "");
    return name;
  };
  for (bool clash = true; clash;) {
    clash = false;
    std::map<std::string, std::vector<std::size_t>> byName;
    for (std::size_t run = 0; run < parts.size(); ++run) byName[nameAt(run)].push_back(run);
    for (const auto& [name, runs] : byName) {
      if (runs.size() < 2) continue;
      for (std::size_t run : runs) {
        if (depth[run] < parts[run].size()) {
          ++depth[run];
          clash = true;
        }
      }
    }
  }
  std::vector<std::string> names;
  for (std::size_t run = 0; run < parts.size(); ++run) names.push_back(nameAt(run));
  return names;
}

/// Each run's lines, from `linesOf(index)`. With `leftOut`, a run that cannot be read (a
/// missing or damaged file) is left out and said there, and the others are written; the
/// first run's error goes up only when no run can be read. Without, any run's error goes up.
template <typename LinesOf>
std::string linesOfEachRun(const std::vector<std::string>& runDirectories, std::vector<RunLeftOut>* leftOut,
                           LinesOf linesOf) {
  std::string text;
  bool anyRead = false;
  std::exception_ptr firstError;
  const std::size_t saidBefore = leftOut ? leftOut->size() : 0;
  for (std::size_t index = 0; index < runDirectories.size(); ++index) {
    if (!leftOut) {
      text += linesOf(index);
      continue;
    }
    try {
      text += linesOf(index);  // whole or not at all: a run's lines are made before any is kept
      anyRead = true;
    } catch (const Error& e) {
      leftOut->push_back({runDirectories[index], e.what()});
      if (!firstError) firstError = std::current_exception();
    }
  }
  if (!anyRead && firstError) {
    leftOut->resize(saidBefore);  // the error says it: nothing was written
    std::rethrow_exception(firstError);
  }
  return text;
}

}  // namespace

std::string runComparisonCsv(const std::vector<std::string>& runDirectories, std::vector<RunLeftOut>* leftOut) {
  std::string table =
      "run,status,mode,model,dataset,devices,replicas,seed,lr,momentum,weight_decay,batch_size,epochs,epochs_completed,"
      "test_accuracy,test_nll,test_brier,test_ece,mean_member_accuracy,disagreement,seconds_per_epoch,"
      "images_per_second,train_limit,test_limit,lr_schedule,lr_warmup_steps,classes\n";
  const std::vector<std::string> names = distinctRunNames(runDirectories);
  return table + linesOfEachRun(runDirectories, leftOut, [&](std::size_t run) {
    std::ostringstream out;
    const std::string& directory = runDirectories[run];
    const RunDirectory folder(directory);
    requireRestorable(folder, folder.configPath());
    const RunSummary s = RunSummary::read(folder.summaryPath());
    const ExperimentConfig& setup = s.setup;
    // A summary that says "running" while no process holds the run was left by a killed one.
    const bool killed = s.status == RunStatus::Running && !RunWriterLock::heldElsewhere(directory);
    out << csvField(names[run]) << ',' << (killed ? "interrupted" : runStatusName(s.status)) << ',' << modeName(setup.mode)
        << ',' << modelName(setup.model) << ',' << csvField(setup.dataset) << ',' << csvField(s.devices) << ','
        << s.replicas << ',' << setup.seed << ',' << number(setup.learningRate) << ',' << number(setup.momentum) << ','
        << number(setup.weightDecay) << ','
        << setup.batchSize << ',' << setup.epochs << ',' << s.epochsCompleted << ',';
    if (s.evaluation) {
      const EvaluationResult& e = *s.evaluation;
      out << number(e.ensemble.accuracy) << ',' << number(e.ensemble.nll) << ',' << number(e.ensemble.brier) << ','
          << number(e.ensemble.ece) << ',' << number(e.meanMember.accuracy) << ',' << number(e.ensemble.disagreement);
    } else {
      out << ",,,,,";
    }
    // The sample limits (0: the whole split), so a quick run on 3,000 images is not read as a full one.
    const ExperimentConfig config = ExperimentConfig::fromFile(folder.configPath());
    out << ',' << number(s.secondsPerEpoch) << ',' << number(s.imagesPerSecond) << ',' << config.trainLimit << ','
        << config.testLimit;
    // Last, so the columns before keep their places: what else sets two runs of one lr apart
    // (a cosine run and a constant one had read alike), and the classes the models output.
    out << ',' << lrScheduleName(setup.lrSchedule) << ',' << setup.lrWarmupSteps << ',' << s.classes << '\n';
    return out.str();
  });
}

std::string runCurvesCsv(const std::vector<std::string>& runDirectories, std::vector<RunLeftOut>* leftOut) {
  const std::vector<std::string> names = distinctRunNames(runDirectories);
  return "run,model,step,epoch,metric,value\n" + linesOfEachRun(runDirectories, leftOut, [&](std::size_t index) {
    std::ostringstream out;
    const RunDirectory folder(runDirectories[index]);
    const std::string run = csvField(names[index]);
    requireRestorable(folder, folder.metricsPath());
    for (const MetricsRow& row : readMetricsCsv(folder.metricsPath())) {
      const std::string prefix = run + ',' + csvField(curveModelName(row.member)) + ',' + std::to_string(row.step) + ',' +
                                 std::to_string(row.epoch) + ',';
      // An epoch's end logs its last window and, beside its test scores, the epoch's means
      // at the same step: the means are metrics of their own, so (run, model, step, metric)
      // names one value.
      const bool epochEnd = row.testLoss || row.testAccuracy;
      const std::pair<const char*, const std::optional<double>&> metrics[] = {
          {epochEnd ? "train_loss_epoch_mean" : "train_loss", row.trainLoss},
          {epochEnd ? "train_accuracy_epoch_mean" : "train_accuracy", row.trainAccuracy},
          {"test_loss", row.testLoss}, {"test_accuracy", row.testAccuracy}};
      for (const auto& [metric, value] : metrics) {
        if (value) out << prefix << metric << ',' << number(*value) << '\n';
      }
    }
    return out.str();
  });
}

void writeRunComparison(const std::vector<std::string>& runDirectories, const std::string& path,
                        std::vector<RunLeftOut>* leftOut) {
  writeFileAtomically(path, runComparisonCsv(runDirectories, leftOut));
}

void writeRunCurves(const std::vector<std::string>& runDirectories, const std::string& path,
                    std::vector<RunLeftOut>* leftOut) {
  writeFileAtomically(path, runCurvesCsv(runDirectories, leftOut));
}

}  // namespace ensemble
