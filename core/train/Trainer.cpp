// SPDX-License-Identifier: GPL-3.0-or-later
// The training loop, top to bottom. Each job it coordinates has a file of its own:
//   RunSetup        checks the settings, loads the data, connects the replicas;
//   TrainingStep    one step of the members (EnsembleStep, with MemberAveraging) or of the
//                   data-parallel shards (DataParallelStep);
//   ScoreLedger     the steps' scores, from the device to the running means;
//   RunRecorder     metrics.csv, summary.json and checkpoints (rank 0 writes);
//   Evaluator       the members and their ensemble on the test split;
//   RunSession      the state all of these work on, prepared and opened (RunAnalysis,
//                   not Trainer, evaluates an opened run).
#include "core/train/Trainer.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>

#include "core/common/Error.h"
#include "core/common/ErrorMessage.h"
#include "core/common/FieldMention.h"
#include "core/io/Checkpoint.h"
#include "core/io/RunDirectory.h"
#include "core/io/RunWriterLock.h"
#include "core/config/LearningRateSchedule.h"
#include "core/train/Divergence.h"
#include "core/train/Precision.h"
#include "core/train/RunControl.h"
#include "core/train/RunSetup.h"
#include "core/train/RunSession.h"
#include "core/train/TrainingObserver.h"

namespace ensemble {

using Clock = std::chrono::steady_clock;

void RunSession::trainStep(const EpochOrder& order) {
  // The schedule's rate from the steps done, so a resumed run continues it exactly. A
  // constant rate is the optimizers' own from the start.
  if (learningRateVaries(config)) {
    step->setLearningRate(learningRateOfStep(config, state.globalStep + 1, sampler->stepsPerEpoch()));
  }
  ledger->add(step->train(order, state.stepInEpoch * config.batchSize), state.globalStep + 1, state.epoch + 1);
}

std::vector<torch::Device> RunSession::trainingDevices() const {
  std::vector<torch::Device> devices;
  for (const Replica& replica : replicas) devices.push_back(replica.device);
  return devices;
}

void RunSession::advance(double seconds) {
  state.stepInEpoch += 1;
  state.globalStep += 1;
  state.trainSeconds += seconds;
  state.samplesTrained += config.batchSize * int64_t(memberCount());
}

void RunSession::logStep(TrainingObserver* observer, bool logged, int64_t sessionSteps, double sessionSeconds) {
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
  if (learningRateVaries(config)) event.learningRate = learningRateOfStep(config, state.globalStep, sampler->stepsPerEpoch());
  event.logged = logged;
  if (logged) {
    for (std::size_t m = 0; m < memberCount(); ++m) event.members.push_back(state.window[m].mean());
    event.ensemble = state.window.back().mean();
    recorder->writeTrainingRows(state);
    resetAccumulators(state.window);
  }
  if (observer) observer->onStep(event);
}

void RunSession::logStepsBeforeDivergence(int64_t lastFiniteStep) {
  // The ledger recorded each step up to the one that diverged: the window holds the finite
  // ones since the last logged row (none where it diverged at a window's first step).
  if (state.window.empty() || state.window.front().steps == 0 || lastFiniteStep > state.globalStep) return;
  RunState upToThen = state;
  upToThen.globalStep = lastFiniteStep;
  recorder->writeTrainingRows(upToThen);
}

EpochEvent RunSession::finishEpoch(double epochSeconds) {
  EpochEvent event;
  event.epoch = state.epoch + 1;
  event.epochs = config.epochs;
  event.globalStep = state.globalStep;
  event.epochSeconds = epochSeconds;
  event.test = evaluate();
  refuseNonFiniteTestLoss(event.test, memberCount() == 1, divergencePlace());  // before its rows are written
  for (std::size_t m = 0; m < memberCount(); ++m) event.train.push_back(state.epochTotals[m].mean());
  event.ensembleTrain = state.epochTotals.back().mean();
  recorder->writeEpochRows(event, state);
  state.lastEvaluation = event.test;
  state.epoch += 1;
  state.stepInEpoch = 0;
  resetAccumulators(state.epochTotals);
  return event;
}

void RunSession::evaluateMidEpoch(TrainingObserver* observer) {
  EvaluationEvent event;
  event.epoch = state.epoch + 1;
  event.globalStep = state.globalStep;
  event.stepsPerEpoch = sampler->stepsPerEpoch();
  event.elapsedSeconds = state.trainSeconds;
  event.test = evaluate();
  refuseNonFiniteTestLoss(event.test, memberCount() == 1, divergencePlace());
  recorder->writeEvaluationRows(event, state);
  if (observer) observer->onEvaluation(event);
}

void RunSession::checkpoint(TrainingObserver* observer) {
  ledger->flush(state);  // a checkpoint holds every step's numbers, and no diverged weights
  const std::optional<CheckpointEvent> written = recorder->checkpoint(state);
  if (written && observer) observer->onCheckpoint(*written);
}

std::string RunSession::rankZerosFolder() const {
  if (communicator->processRank() == 0) return {};
  const LeaderRunFolder folder = communicator->leaderRunFolder();
  if (folder.path.empty()) return "rank 0's";
  return folder.path + (folder.host.empty() ? "" : " on host " + folder.host);
}

RunFinishedEvent RunSession::stop(TrainingObserver* observer) {
  checkpoint(observer);
  communicator->finish();
  RunFinishedEvent finished;
  finished.runDirectory = runPath;
  finished.status = RunStatus::Stopped;
  // Rank 0 names its folder; another rank's own path is no folder (it writes none).
  const int processes = communicator->processCount();
  finished.message = "stopped at step " + std::to_string(state.globalStep) +
                     (processes == 1 ? "; resume with: " + mention::resumeCommand(runPath)
                      : communicator->processRank() == 0
                          ? "; resume every rank with: " + mention::resumeCommand(runPath) + " --world-size " +
                                std::to_string(processes) + " --rank R (R its own) and the --master-addr and "
                                "--master-port it was started with"
                          : "; resume every rank with the same group flags and resume --run, naming rank 0's run "
                            "folder (" + rankZerosFolder() + ")");
  finished.summary = writeSummary(finished.status, finished.message);
  recorder->releaseFolder();
  if (observer) observer->onRunFinished(finished);
  return finished;
}

Trainer::Trainer(std::unique_ptr<RunSession> session) : m_session(std::move(session)) {}
Trainer::~Trainer() = default;

std::unique_ptr<Trainer> Trainer::create(ExperimentConfig config, std::string runDirectory,
                                         std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group) {
  return std::unique_ptr<Trainer>(new Trainer(createRunSession(std::move(config), std::move(runDirectory), std::move(data), group)));
}

std::unique_ptr<Trainer> Trainer::open(const std::string& runDirectory, std::shared_ptr<const DatasetPair> data,
                                       const ProcessGroupOptions& group) {
  // Before its checkpoint is read: the process training it may be writing the next one.
  RunWriterLock::refuseIfHeldElsewhere(runDirectory);
  return std::unique_ptr<Trainer>(
      new Trainer(openRunSession(runDirectory, {}, std::move(data), group, OpenedFor::Resuming)));
}

namespace {

/// The failure as a divergence, where it is one.
std::optional<DivergenceError> divergenceOf(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const DivergenceError& diverged) {
    return diverged;
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace

RunFinishedEvent Trainer::run(TrainingObserver* observer, RunControl* control) {
  RunSession& d = *m_session;
  const RunSession::ComputeScope scope(d);
  RunFinishedEvent finished;
  finished.runDirectory = d.runPath;
  bool folderOpen = false;
  std::optional<int64_t> lastFiniteStep;  // where the loss became non-finite
  try {
    d.recorder->open(d.resumed, d.state);
    folderOpen = true;
    if (observer) {
      std::vector<std::string> notices = d.dataNotices;
      notices.insert(notices.end(), d.recorder->notices().begin(), d.recorder->notices().end());
      observer->onRunStarted({d.runPath, d.rankZerosFolder(), d.config, formatDevices(d.devices),
                              d.communicator->worldReplicas(), d.communicator->processCount(),
                              d.sampler->stepsPerEpoch(), d.state.globalStep,
                              d.data->train.size(), d.modelInput.height, d.modelInput.width, d.modelInput.classes,
                              std::move(notices)});
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
    if (const std::optional<DivergenceError> diverged = divergenceOf(std::current_exception())) {
      lastFiniteStep = diverged->lastFiniteStep();
      if (folderOpen) {
        try {
          d.logStepsBeforeDivergence(*lastFiniteStep);
        } catch (const Error&) {
          // The rows are a help, not the failure: the message below still says what happened.
        }
      }
      // Which checkpoint still holds good weights: the last one may hold the ones that
      // diverged (written at the step before a NaN loss), and resuming it repeats the NaN.
      if (d.communicator->processRank() == 0) {
        const std::string note = checkpointsAfterDivergence(RunDirectory(d.runPath).checkpointsPath(), diverged->lastGoodWeights());
        if (!note.empty()) finished.message += ". " + note;
      }
    }
    d.communicator->announceFailure(finished.message);
  }
  if (finished.status == RunStatus::Failed && folderOpen) {
    finished.summary = d.recorder->summarize(finished.status, finished.message, d.state);
    if (lastFiniteStep && *lastFiniteStep < finished.summary->stepsCompleted) {
      // summary.json counts the steps that trained on finite numbers, as the message does.
      finished.summary->stepsCompleted = *lastFiniteStep;
      finished.summary->epochsCompleted =
          std::min(finished.summary->epochsCompleted, *lastFiniteStep / d.sampler->stepsPerEpoch());
    }
    try {
      d.recorder->writeSummary(*finished.summary);
    } catch (const Error&) {
      // The disk may be what failed; the message still reaches the user below.
    }
  }
  d.recorder->releaseFolder();
  if (observer) observer->onRunFinished(finished);
  return finished;
}

const ExperimentConfig& Trainer::config() const { return m_session->config; }
const std::string& Trainer::runDirectory() const { return m_session->runPath; }
std::string Trainer::devices() const { return formatDevices(m_session->devices); }
int64_t Trainer::stepsPerEpoch() const { return m_session->sampler ? m_session->sampler->stepsPerEpoch() : 0; }
int64_t Trainer::globalStep() const { return m_session->state.globalStep; }
std::vector<std::string> Trainer::filesToRestore() const { return m_session->recorder->filesToRestore(); }
int Trainer::processRank() const { return m_session->communicator->processRank(); }
std::string Trainer::rankZerosFolder() const { return m_session->rankZerosFolder(); }

}  // namespace ensemble
