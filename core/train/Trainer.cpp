// SPDX-License-Identifier: GPL-3.0-or-later
// The training loop, top to bottom. Each job it coordinates has a file of its own:
//   RunSetup        checks the settings, loads the data, connects the replicas;
//   TrainingStep    one step of the members (EnsembleStep, with MemberAveraging) or of the
//                   data-parallel shards (DataParallelStep);
//   ScoreLedger     the steps' scores, from the device to the running means;
//   RunRecorder     metrics.csv, summary.json and checkpoints (rank 0 writes);
//   Evaluator       the members and their ensemble on the test split;
//   TrainerImpl.h   the state all of these work on (TrainerEvaluation.cpp evaluates an
//                   opened run: shifted, out-of-distribution, raw predictions).
#include "core/train/Trainer.h"

#include <chrono>

#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/common/FieldMention.h"
#include "core/io/Checkpoint.h"
#include "core/train/Precision.h"
#include "core/train/RunControl.h"
#include "core/train/RunSetup.h"
#include "core/train/TrainerImpl.h"
#include "core/train/TrainingObserver.h"

namespace ensemble {

using Clock = std::chrono::steady_clock;

void Trainer::Impl::prepare() {
  devices = resolveRunDevices(config, group);
  config.memberForm = resolveMemberForm(config, devices);  // what config.json and the step see
  data = loadRunData(config, std::move(data), !evaluationOnly);
  if (!evaluationOnly) sampler = std::make_unique<EpochSampler>(config.seed, data->train.size(), config.batchSize);
  const ModelInput input = modelInputOf(data->train);
  checkMemoryBudget(config, devices, group.worldSize, *data, input);
  if (!evaluationOnly) checkDeterministicKernels(config, input, devices);
  communicator = connectReplicas(config, devices, group);
  replicas = buildReplicas(config, input, devices, communicator->firstReplica());
  workers = std::make_unique<ReplicaWorkers>(replicaThreadCount(devices, stacked()));
  trainSplit = std::make_unique<SplitOnDevices>(data->train);
  testSplit = std::make_unique<SplitOnDevices>(data->test);
  step = makeTrainingStep({config, replicas, *communicator, *workers, *trainSplit});
  ledger = std::make_unique<ScoreLedger>(
      *communicator, ScoreLedger::Setup{int(replicas.size()), config.mode, config.batchSize, config.learningRate,
                                        runPath});
  recorder = std::make_unique<RunRecorder>(config, RunDirectory(runPath), *communicator, replicas,
                                           formatDevices(devices), sampler ? sampler->stepsPerEpoch() : 0);
  useCallerThreadForBlas();
  resetAccumulators(state.window);
  resetAccumulators(state.epochTotals);
}

void Trainer::Impl::trainStep(const EpochOrder& order) {
  ledger->add(step->train(order, state.stepInEpoch * config.batchSize), state.globalStep + 1, state.epoch + 1);
}

std::vector<torch::Device> Trainer::Impl::trainingDevices() const {
  std::vector<torch::Device> devices;
  for (const Replica& replica : replicas) devices.push_back(replica.device);
  return devices;
}

void Trainer::Impl::advance(double seconds) {
  state.stepInEpoch += 1;
  state.globalStep += 1;
  state.trainSeconds += seconds;
  state.samplesTrained += config.batchSize * int64_t(memberCount());
}

void Trainer::Impl::logStep(TrainingObserver* observer, bool logged, int64_t sessionSteps, double sessionSeconds) {
  StepEvent event;
  event.epoch = state.epoch + 1;
  event.epochs = config.epochs;
  event.stepInEpoch = state.stepInEpoch;
  event.stepsPerEpoch = sampler->stepsPerEpoch();
  event.globalStep = state.globalStep;
  event.totalSteps = config.epochs * sampler->stepsPerEpoch();
  event.elapsedSeconds = state.trainSeconds;
  event.imagesPerSecond = state.trainSeconds > 0 ? double(state.samplesTrained) / state.trainSeconds : 0;
  const double perStep = sessionSteps > 0 ? sessionSeconds / double(sessionSteps) : 0;
  event.etaSeconds = perStep * double(event.totalSteps - event.globalStep);
  event.logged = logged;
  if (logged) {
    for (std::size_t m = 0; m < memberCount(); ++m) event.members.push_back(state.window[m].mean());
    event.ensemble = state.window.back().mean();
    recorder->writeTrainingRows(state);
    resetAccumulators(state.window);
  }
  if (observer) observer->onStep(event);
}

EpochEvent Trainer::Impl::finishEpoch(double epochSeconds) {
  EpochEvent event;
  event.epoch = state.epoch + 1;
  event.epochs = config.epochs;
  event.globalStep = state.globalStep;
  event.epochSeconds = epochSeconds;
  event.test = evaluate();
  for (std::size_t m = 0; m < memberCount(); ++m) event.train.push_back(state.epochTotals[m].mean());
  event.ensembleTrain = state.epochTotals.back().mean();
  recorder->writeEpochRows(event, state);
  state.lastEvaluation = event.test;
  state.epoch += 1;
  state.stepInEpoch = 0;
  resetAccumulators(state.epochTotals);
  return event;
}

void Trainer::Impl::evaluateMidEpoch(TrainingObserver* observer) {
  EvaluationEvent event;
  event.epoch = state.epoch + 1;
  event.globalStep = state.globalStep;
  event.stepsPerEpoch = sampler->stepsPerEpoch();
  event.elapsedSeconds = state.trainSeconds;
  event.test = evaluate();
  recorder->writeEvaluationRows(event, state);
  if (observer) observer->onEvaluation(event);
}

void Trainer::Impl::checkpoint(TrainingObserver* observer) {
  ledger->flush(state);  // a checkpoint holds every step's numbers, and no diverged weights
  const std::optional<CheckpointEvent> written = recorder->checkpoint(state);
  if (written && observer) observer->onCheckpoint(*written);
}

RunFinishedEvent Trainer::Impl::stop(TrainingObserver* observer) {
  checkpoint(observer);
  communicator->finish();
  RunFinishedEvent finished;
  finished.runDirectory = runPath;
  finished.status = RunStatus::Stopped;
  finished.message = "stopped at step " + std::to_string(state.globalStep) +
                     "; resume with: " + mention::resumeCommand(runPath);
  finished.summary = writeSummary(finished.status, finished.message);
  if (observer) observer->onRunFinished(finished);
  return finished;
}

Trainer::Trainer(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Trainer::~Trainer() = default;

std::unique_ptr<Trainer> Trainer::create(ExperimentConfig config, std::string runDirectory,
                                         std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group) {
  auto impl = std::make_unique<Impl>();
  impl->config = std::move(config);
  impl->group = group;
  impl->runPath = std::move(runDirectory);
  impl->data = std::move(data);
  impl->prepare();
  initialiseReplicasFrom(impl->replicas, impl->config, impl->communicator->firstReplica(), impl->memberCount());
  // Record the devices actually used, so config.json replays the same run.
  impl->config.devices = formatDevices(impl->devices);
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

std::unique_ptr<Trainer> Trainer::open(const std::string& runDirectory, const EvaluationData& evaluation,
                                       std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group) {
  const RunDirectory directory(runDirectory);
  const std::string checkpointDir = latestCheckpoint(directory.checkpointsPath());
  CheckpointData saved = readCheckpoint(checkpointDir);
  ExperimentConfig config = ExperimentConfig::fromJson(saved.config, checkpointDir + "/manifest.json");
  if (!evaluation.dataset.empty()) config.dataset = evaluation.dataset;
  if (evaluation.testLimit) config.testLimit = *evaluation.testLimit;
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->runPath = directory.path();
  impl->data = std::move(data);
  impl->group = group;
  impl->evaluationOnly = !evaluation.dataset.empty();
  impl->prepare();
  impl->state = RunState::fromJson(saved.state, checkpointDir);
  checkResumable(impl->state, config, impl->evaluationOnly ? 0 : impl->sampler->stepsPerEpoch(), impl->memberCount(),
                 saved.weights.size(), impl->evaluationOnly, checkpointDir);
  restoreReplicas(impl->replicas, saved, config.mode, impl->communicator->firstReplica(), checkpointDir);
  impl->resumed = true;
  impl->recorder->resumedFrom(impl->state.globalStep);
  return std::unique_ptr<Trainer>(new Trainer(std::move(impl)));
}

RunFinishedEvent Trainer::run(TrainingObserver* observer, RunControl* control) {
  Impl& d = *m_impl;
  const Impl::ComputeScope scope(d);
  RunFinishedEvent finished;
  finished.runDirectory = d.runPath;
  if (d.evaluationOnly) {  // nothing is written: the run folder stays as it was
    finished.status = RunStatus::Failed;
    finished.message = "this run was opened to evaluate it on " + d.config.dataset +
                       "; it trains only on its own dataset";
    if (observer) observer->onRunFinished(finished);
    return finished;
  }
  bool folderOpen = false;
  try {
    d.recorder->open(d.resumed, d.state);
    folderOpen = true;
    if (observer) {
      observer->onRunStarted({d.runPath, d.config, formatDevices(d.devices), d.communicator->worldReplicas(),
                              d.sampler->stepsPerEpoch(), d.state.globalStep});
    }
    int64_t sessionSteps = 0;
    double sessionSeconds = 0;
    for (auto& replica : d.replicas) replica.model->train();
    while (d.state.epoch < d.config.epochs) {
      const EpochOrder order(d.sampler->permutation(d.state.epoch), d.trainingDevices());
      double epochSeconds = 0;
      while (d.state.stepInEpoch < d.sampler->stepsPerEpoch()) {
        if (control && !d.distributed()) {  // a paused rank would stall the others: no pause there
          if (control->pauseRequested() && observer) observer->onPaused(true);
          if (control->waitWhilePaused() && observer) observer->onPaused(false);
        }
        const bool stopRequested = control && control->stopRequested();
        d.ledger->setLocalStopRequest(stopRequested);
        // Across processes the stop is agreed through the last step's exchange, so every
        // rank stops at the same step and checkpoints together.
        if (d.distributed() ? d.ledger->stopAgreed() : stopRequested) return d.stop(observer);
        const auto stepStart = Clock::now();
        d.trainStep(order);
        const int64_t step = d.state.globalStep + 1;
        const bool endOfEpoch = d.state.stepInEpoch + 1 == d.sampler->stepsPerEpoch();
        const bool logged = endOfEpoch || step % d.config.logEvery == 0;
        const bool checkpointDue = d.config.checkpointEvery > 0 && step % d.config.checkpointEvery == 0;
        // Across processes the scores (and an agreed stop) are exchanged every step.
        if (logged || checkpointDue || d.distributed() || d.ledger->full()) d.ledger->flush(d.state);
        const double seconds = std::chrono::duration<double>(Clock::now() - stepStart).count();
        d.advance(seconds);
        epochSeconds += seconds;
        sessionSteps += 1;
        sessionSeconds += seconds;
        d.logStep(observer, logged, sessionSteps, sessionSeconds);
        // Before a checkpoint due at this step, so the checkpoint keeps the evaluation's rows.
        if (!endOfEpoch && d.config.evalEvery > 0 && step % d.config.evalEvery == 0) d.evaluateMidEpoch(observer);
        if (endOfEpoch) {
          EpochEvent epoch = d.finishEpoch(epochSeconds);
          d.checkpoint(observer);
          epoch.summary = d.writeSummary(RunStatus::Running, "");
          // Observers hear of the epoch once its checkpoint and summary are on disk.
          if (observer) observer->onEpoch(epoch);
          break;  // finishEpoch moved the state on to the next epoch
        } else if (checkpointDue) {
          d.checkpoint(observer);
        }
      }
    }
    finished.status = RunStatus::Completed;
    finished.summary = d.writeSummary(finished.status, "");
    d.communicator->finish();
  } catch (const DistributedError& error) {  // the group is broken: nothing to tell it
    finished.status = RunStatus::Failed;
    finished.message = error.what();
  } catch (...) {
    finished.status = RunStatus::Failed;
    finished.message = describeCurrentException();
    d.communicator->announceFailure(finished.message);
  }
  if (finished.status == RunStatus::Failed && folderOpen) {
    finished.summary = d.recorder->summarize(finished.status, finished.message, d.state);
    try {
      d.recorder->writeSummary(*finished.summary);
    } catch (const Error&) {
      // The disk may be what failed; the message still reaches the user below.
    }
  }
  if (observer) observer->onRunFinished(finished);
  return finished;
}

const ExperimentConfig& Trainer::config() const { return m_impl->config; }
const std::string& Trainer::runDirectory() const { return m_impl->runPath; }
std::string Trainer::devices() const { return formatDevices(m_impl->devices); }
int64_t Trainer::stepsPerEpoch() const { return m_impl->sampler ? m_impl->sampler->stepsPerEpoch() : 0; }
int64_t Trainer::globalStep() const { return m_impl->state.globalStep; }
int Trainer::processRank() const { return m_impl->communicator->processRank(); }

}  // namespace ensemble
