// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/RunRecorder.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include <torch/torch.h>

#include "core/comm/Communicator.h"
#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/config/RunMode.h"
#include "core/io/AtomicFile.h"
#include "core/io/Checkpoint.h"
#include "core/io/MetricsCsvWriter.h"
#include "core/io/TensorBoardLog.h"
#include "core/config/ConfigFields.h"
#include "core/train/Determinism.h"
#include "core/config/ExperimentConfig.h"
#include "core/config/LearningRateSchedule.h"
#include "core/train/Replica.h"
#include "core/train/RunState.h"

namespace ensemble {
namespace {

/// Each member's `dict` (weights or optimizer state) from every process, in member order.
std::vector<TensorDict> gatherMembers(Communicator& communicator, const std::vector<TensorDict>& local) {
  if (communicator.processCount() <= 1) return local;
  std::vector<TensorDict> all(std::size_t(communicator.worldReplicas()));
  for (const auto& entry : local.front()) {
    std::vector<torch::Tensor> values;
    for (const TensorDict& dict : local) values.push_back(dict.at(entry.key()));
    const std::vector<torch::Tensor> gathered = communicator.allGather(values);
    for (std::size_t m = 0; m < all.size(); ++m) all[m].insert(entry.key(), gathered[m]);
  }
  return all;
}

/// Whether the file at `path` holds exactly `expected` (false where it is missing or no JSON).
bool fileHoldsJson(const std::string& path, const nlohmann::json& expected) {
  std::error_code missing;
  if (!std::filesystem::exists(path, missing)) return false;
  try {
    return nlohmann::json::parse(readWholeFile(path)) == expected;
  } catch (const std::exception&) {
    return false;
  }
}

/// What became of a resumed run's config.json, which the checkpoint's copy replaces: missing,
/// not JSON, or the settings that differ (up to three), for the run's notices; empty where
/// only what an older version wrote differs (its "version", settings it did not have yet).
/// It had been put back without a word: an edited "epochs" was found undone only by reading
/// the file.
std::string configRestoredNotice(const std::string& path, const nlohmann::json& config) {
  const std::string restored = "; it is restored from the checkpoint's copy: a run goes on with the settings it "
                               "started with (to train on from its weights with others, start a run with " +
                               mention::field("init_from") + " " + std::filesystem::path(path).parent_path().string() + ")";
  std::error_code missing;
  if (!std::filesystem::exists(path, missing)) return path + " is missing" + restored;
  nlohmann::json file;
  try {
    file = nlohmann::json::parse(readWholeFile(path));
  } catch (const std::exception&) {
    return path + " is not valid JSON" + restored;
  }
  if (!file.is_object()) return path + " is not a JSON object" + restored;
  std::string changes;
  int changed = 0;
  for (const auto& [key, value] : config.items()) {
    if (key == "version" || !file.contains(key) || file.at(key) == value) continue;
    if (++changed <= 3) {
      changes += std::string(changes.empty() ? "" : ", ") + key + " " + file.at(key).dump() + ", the checkpoint's " +
                 value.dump();
    }
  }
  if (changed == 0) return "";
  if (changed > 3) changes += " and " + std::to_string(changed - 3) + " more";
  return path + " was edited (" + changes + ")" + restored;
}

}  // namespace

RunRecorder::RunRecorder(const ExperimentConfig& config, RunDirectory directory, Communicator& communicator,
                         std::vector<Replica>& replicas, std::string devices, int64_t stepsPerEpoch,
                         int64_t classes)
    : m_config(config),
      m_directory(std::move(directory)),
      m_communicator(communicator),
      m_replicas(replicas),
      m_devices(std::move(devices)),
      m_stepsPerEpoch(stepsPerEpoch),
      m_classes(classes) {}

RunRecorder::~RunRecorder() = default;

bool RunRecorder::leader() const { return m_communicator.processRank() == 0; }

std::size_t RunRecorder::memberCount() const {
  return RunMode::of(m_config.mode).modelCount(m_communicator.worldReplicas());
}

std::size_t RunRecorder::reportedRows() const {
  return memberCount() + (RunMode::of(m_config.mode).recordsEnsembleRow() ? 1 : 0);
}

std::string RunRecorder::rowName(std::size_t slot) const {
  return slot < memberCount() ? std::to_string(slot) : "ensemble";
}

void RunRecorder::open(bool resumed, RunState& state) {
  if (!leader()) return;
  m_directory.create();
  m_lock = RunWriterLock::take(m_directory.path());  // before the first write
  if (resumed) {
    removeIncompleteCheckpoints(m_directory.checkpointsPath());
    restoreMetricsSeenBy(state);
  }
  // A resumed run whose config.json was removed, damaged or edited gets it back from the
  // checkpoint's copy: the run goes on with the settings it started with (an edited
  // "epochs" changed nothing, and the file went on saying it had), and the window, eval,
  // export and `train --config` read the file.
  if (const nlohmann::json config = m_config.toJson(); !resumed || !fileHoldsJson(m_directory.configPath(), config)) {
    if (const std::string notice = resumed ? configRestoredNotice(m_directory.configPath(), config) : "";
        !notice.empty()) {
      m_notices.push_back(notice);
    }
    RunDirectory::writeJson(m_directory.configPath(), config);
  }
  // A resumed run keeps the rows its checkpoint had seen (dropping any written after it,
  // or torn by a crash); a new run starts an empty file.
  m_metrics = std::make_unique<MetricsCsvWriter>(m_directory.metricsPath(),
                                                 std::uint64_t(resumed ? state.metricsBytes : 0));
  // Every row at or before the checkpoint's step was written before the checkpoint: the
  // log keeps those points, as metrics.csv keeps those rows.
  std::vector<std::string> models;
  for (std::size_t row = 0; row < reportedRows(); ++row) models.push_back(tensorBoardModelName(rowName(row)));
  m_tensorboard = std::make_unique<TensorBoardWriter>(m_directory.tensorBoardPath(), models,
                                                      resumed ? std::optional<int64_t>(state.globalStep) : std::nullopt);
  flush(state);
  if (!resumed) writeSummary(summarize(RunStatus::Running, "", state));
}

void RunRecorder::resumedFrom(int64_t globalStep, std::optional<std::string> metricsCsv) {
  m_lastCheckpointStep = globalStep;
  m_checkpointMetrics = std::move(metricsCsv);
}

bool RunRecorder::metricsDifferFromCheckpoint() const {
  if (!m_checkpointMetrics) return false;
  std::string text;
  try {
    text = readWholeFile(m_directory.metricsPath());
  } catch (const IoError&) {  // gone
    return true;
  }
  // Rows after the checkpoint's are the resumed run's to write again: only its prefix counts.
  return text.compare(0, m_checkpointMetrics->size(), *m_checkpointMetrics) != 0;
}

std::vector<std::string> RunRecorder::filesToRestore() const {
  std::vector<std::string> files;
  if (!fileHoldsJson(m_directory.configPath(), m_config.toJson())) files.push_back("config.json");
  if (metricsDifferFromCheckpoint()) files.push_back("metrics.csv");
  return files;
}

void RunRecorder::restoreMetricsSeenBy(const RunState& state) {
  const std::string path = m_directory.metricsPath();
  const std::string checkpoint = "the checkpoint of step " + std::to_string(state.globalStep);
  if (m_checkpointMetrics) {
    if (!metricsDifferFromCheckpoint()) return;
    writeFileAtomically(path, *m_checkpointMetrics);
    m_notices.push_back(path + " had lost or changed rows that were written before " + checkpoint +
                        " (the file was cut short, removed or edited); they are restored from that checkpoint's copy");
    return;
  }
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size >= state.metricsBytes) return;
  m_notices.push_back(path + (ec ? std::string(" is missing") : " is shorter than " + checkpoint + " saw it (" +
                                  std::to_string(size) + " of " + std::to_string(state.metricsBytes) + " bytes)") +
                      ", and that checkpoint, written before checkpoints kept a copy of the file, cannot restore it: " +
                      (ec ? "the run goes on in a new file" : "its whole rows are kept, the run goes on after them") +
                      ", and the rows it lost stay lost");
}

void RunRecorder::record(const MetricsRow& row) {
  m_metrics->write(row);
  const std::string model = tensorBoardModelName(row.member);
  const double now = wallClockSeconds();
  for (const ScalarEvent& scalar : tensorBoardScalars(row, now)) m_tensorboard->add(model, scalar);
  const double rate = learningRateOfStep(m_config, row.step, m_stepsPerEpoch);
  if (const std::optional<ScalarEvent> scalar = learningRateScalar(row, now, rate)) m_tensorboard->add(model, *scalar);
}

void RunRecorder::flush(RunState& state) {
  m_tensorboard->flush();
  state.metricsBytes = m_metrics->flush();
}

void RunRecorder::writeTrainingRows(RunState& state) {
  if (!m_metrics) return;
  for (std::size_t row = 0; row < reportedRows(); ++row) {
    const std::size_t slot = row < memberCount() ? row : memberCount();
    const ModelScore score = state.window[slot].mean();
    record({state.globalStep, state.epoch + 1, rowName(slot), score.loss, score.accuracy, std::nullopt, std::nullopt});
  }
  flush(state);
}

void RunRecorder::writeTestRows(const EvaluationResult& test, const std::vector<ModelScore>& train,
                                RunState& state) {
  for (std::size_t row = 0; row < reportedRows(); ++row) {
    const bool member = row < memberCount();
    const std::size_t slot = member ? row : memberCount();
    const ModelScore score = member ? ModelScore{test.members[row].loss, test.members[row].accuracy}
                                    : ModelScore{test.ensemble.nll, test.ensemble.accuracy};
    MetricsRow line{state.globalStep, state.epoch + 1, rowName(slot), std::nullopt, std::nullopt, score.loss,
                    score.accuracy};
    if (!train.empty()) {
      line.trainLoss = train[slot].loss;
      line.trainAccuracy = train[slot].accuracy;
    }
    record(line);
  }
}

void RunRecorder::writeEpochRows(const EpochEvent& epoch, RunState& state) {
  if (!m_metrics) return;
  std::vector<ModelScore> train = epoch.train;
  train.push_back(epoch.ensembleTrain);
  writeTestRows(epoch.test, train, state);
  if (RunMode::of(m_config.mode).recordsEnsembleRow()) {  // what metrics.csv has no column for
    const EnsembleScore& e = epoch.test.ensemble;
    for (const ScalarEvent& scalar :
         ensembleEvaluationScalars(state.globalStep, wallClockSeconds(), e.brier, e.ece, e.disagreement)) {
      m_tensorboard->add("ensemble", scalar);
    }
  }
  flush(state);
}

void RunRecorder::writeEvaluationRows(const EvaluationEvent& evaluation, RunState& state) {
  if (!m_metrics) return;
  writeTestRows(evaluation.test, {}, state);
  flush(state);
}

std::optional<CheckpointEvent> RunRecorder::checkpoint(const RunState& state) {
  if (m_lastCheckpointStep == state.globalStep) return std::nullopt;
  CheckpointData data;
  data.config = m_config.toJson();
  data.state = state.toJson();
  if (RunMode::of(m_config.mode).replicasAreOneModel()) {  // replica 0 holds it
    data.weights.push_back(m_replicas.front().weights());
    data.optimizer.push_back(m_replicas.front().optimizerState());
  } else {
    std::vector<TensorDict> weights, optimizer;
    for (const Replica& replica : m_replicas) {
      weights.push_back(replica.weights());
      optimizer.push_back(replica.optimizerState());
    }
    data.weights = gatherMembers(m_communicator, weights);
    data.optimizer = gatherMembers(m_communicator, optimizer);
  }
  const int64_t previous = m_lastCheckpointStep;
  m_lastCheckpointStep = state.globalStep;
  if (!leader()) return std::nullopt;
  // The rows this checkpoint has seen (flush() handed them to the OS): a resume restores
  // them from here where the run folder's file lost them.
  if (m_metrics) data.metricsCsv = m_metrics->flushedText(state.metricsBytes);
  try {
    return CheckpointEvent{writeCheckpoint(m_directory.checkpointsPath(), state.globalStep, data), state.globalStep};
  } catch (const IoError& error) {
    throw IoError("the checkpoint of step " + std::to_string(state.globalStep) + " failed: " + error.what() +
                  (previous >= 0 ? "; the checkpoint of step " + std::to_string(previous) +
                                       " is intact, and " + mention::resumeCommand(m_directory.path()) +
                                       " continues from it"
                                 : std::string("; no checkpoint had been written yet")));
  }
}

RunSummary RunRecorder::summarize(RunStatus status, const std::string& message, const RunState& state) const {
  RunSummary summary;
  summary.version = ENSEMBLELAB_VERSION;
  summary.status = status;
  // Files name settings by their config.json keys (see Error.h).
  summary.message = phraseMessage(message, FieldNaming::Keys);
  summary.setup = m_config;
  summary.devices = m_devices;
  summary.replicas = m_communicator.worldReplicas();
  summary.processes = m_communicator.processCount();
  summary.notReproducible = whyNotReproducible(m_config);
  summary.epochsCompleted = state.epoch;
  summary.stepsCompleted = state.globalStep;
  summary.stepsPerEpoch = m_stepsPerEpoch;
  summary.trainSamples = state.trainSamples;  // the training split as this session loaded it
  summary.classes = m_classes;
  summary.trainSeconds = state.trainSeconds;
  summary.secondsPerEpoch = state.epoch > 0 ? state.trainSeconds / double(state.epoch) : 0.0;
  summary.imagesPerSecond = state.trainSeconds > 0 ? double(state.samplesTrained) / state.trainSeconds : 0.0;
  summary.evaluation = state.lastEvaluation;
  return summary;
}

void RunRecorder::writeSummary(const RunSummary& summary) const {
  if (leader()) RunDirectory::writeJson(m_directory.summaryPath(), summary.toJson());
}

}  // namespace ensemble
