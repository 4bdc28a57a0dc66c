// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// An opened or new run's state: its settings, data, replicas, communicator and the parts
// of its loop. Trainer (Trainer.cpp, the loop) and RunAnalysis (RunAnalysis.cpp, an opened
// run's evaluations) each hold one; RunSession.cpp prepares and opens it. Private to
// core/train.
#include <torch/torch.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config/RunMode.h"
#include "core/comm/Communicator.h"
#include "core/common/SeedSequence.h"
#include "core/data/Dataset.h"
#include "core/data/EpochSampler.h"
#include "core/data/ShiftImages.h"
#include "core/train/CpuThreads.h"
#include "core/train/Determinism.h"
#include "core/train/Divergence.h"
#include "core/train/EpochOrder.h"
#include "core/train/Evaluator.h"
#include "core/train/Precision.h"
#include "core/train/Replica.h"
#include "core/train/ReplicaWorkers.h"
#include "core/train/RunRecorder.h"
#include "core/train/RunState.h"
#include "core/train/ScoreLedger.h"
#include "core/train/SplitOnDevices.h"
#include "core/train/RunAnalysis.h"
#include "core/train/Trainer.h"
#include "core/train/TrainingStep.h"

namespace ensemble {

class TrainingObserver;

struct RunSession {
  /// LibTorch's process-wide settings for this run (intra-op threads, TF32, deterministic
  /// kernels), held by every entry point that computes, for as long as it does.
  class ComputeScope final {
   public:
    explicit ComputeScope(const RunSession& run)
        : m_threads(run.intraOpThreads()), m_tf32(run.config.precision), m_determinism(run.config.deterministic) {}

   private:
    IntraOpThreads m_threads;
    Tf32Scope m_tf32;
    DeterminismScope m_determinism;
  };

  ExperimentConfig config;
  ProcessGroupOptions group;
  std::string runPath;
  std::shared_ptr<const DatasetPair> data;
  std::vector<DeviceRef> devices;
  std::vector<Replica> replicas;
  std::unique_ptr<Communicator> communicator;
  std::unique_ptr<ReplicaWorkers> workers;  ///< runs a step's CPU replicas side by side
  std::unique_ptr<SplitOnDevices> trainSplit, testSplit;
  std::unique_ptr<EpochSampler> sampler;
  std::unique_ptr<TrainingStep> step;
  std::unique_ptr<ScoreLedger> ledger;
  std::unique_ptr<RunRecorder> recorder;
  RunState state;
  bool resumed = false;
  /// Being created (not opened from a checkpoint): an ensemble must have two members. A run
  /// an older version trained as an ensemble of one still opens.
  bool created = false;
  /// Opened to evaluate (on its own dataset or another): the test split alone is read (its
  /// training files may be gone, or changed), and the run cannot train.
  bool evaluationOnly = false;
  /// data->test's contentDigest, taken at the first evaluation.
  std::string testSetDigest;
  /// An opened run's classes, from its checkpoint's weights (SavedClasses.h): its models are
  /// built for them whatever the dataset's labels say, once those are checked to fit.
  std::optional<int64_t> savedClasses;
  /// The training images an opened run's checkpoint recorded it trains on (RunState), to
  /// check the dataset against before anything else is said about it; unset for a new run,
  /// an evaluation on another dataset, or a checkpoint from before they were recorded.
  std::optional<int64_t> recordedTrainSamples;
  /// The image shape and classes the models are built for (prepare()).
  ModelInput modelInput;
  /// What the data means for the training, said as the run starts (ClassCoverage.h).
  std::vector<std::string> dataNotices;

  bool distributed() const { return communicator->processCount() > 1; }
  bool stacked() const { return config.memberForm == MemberForm::Stacked; }
  /// Models whose metrics are reported: one per replica of the whole group, except
  /// data-parallel (one model).
  std::size_t memberCount() const { return RunMode::of(config.mode).modelCount(communicator->worldReplicas()); }
  int intraOpThreads() const { return intraOpThreadCount(devices, distributed(), stacked()); }
  /// On a rank other than 0: where rank 0 writes the run, "PATH on host HOST" (its hello
  /// said so); empty on rank 0 and in one process, whose own runPath is the folder.
  std::string rankZerosFolder() const;

  /// Resolves the devices, loads the data, builds the replicas and the loop's parts.
  void prepare();
  void trainStep(const EpochOrder& order);
  /// Every device a local replica trains on, once each.
  std::vector<torch::Device> trainingDevices() const;
  /// Moves the position on by one step of `seconds`.
  void advance(double seconds);
  void logStep(TrainingObserver* observer, bool logged, int64_t sessionSteps, double sessionSeconds);
  /// After a divergence: the training rows of the finite steps since the last logged one, at
  /// `lastFiniteStep` (how the loss grew is what the user looks for; they had been dropped).
  void logStepsBeforeDivergence(int64_t lastFiniteStep);
  /// Evaluates, writes the epoch's metrics rows and moves the state to the next epoch.
  EpochEvent finishEpoch(double epochSeconds);
  /// Evaluates between epoch ends (eval_every) and writes the test rows of this step.
  void evaluateMidEpoch(TrainingObserver* observer);
  void checkpoint(TrainingObserver* observer);
  /// Ends the run at a step boundary on request: checkpoint, summary, event.
  RunFinishedEvent stop(TrainingObserver* observer);
  /// The test split moved by `shift` (its random choices drawn with the run's seed).
  Dataset shiftedTest(const DatasetShift& shift) const {
    Dataset shifted = data->test;
    shifted.images = applyShift(shifted.images, shift, deriveSeed(config.seed, SeedStream::Shift, 0));
    return shifted;
  }
  /// Where the run is, for a divergence's message (Divergence.h).
  DivergencePlace divergencePlace() const {
    return {state.globalStep, state.epoch + 1, config.learningRate, config.weightDecay, runPath};
  }
  EvaluationResult evaluate() {
    EvaluationResult result = evaluateRun(config, replicas, *testSplit, data->test.labels, *workers, *communicator);
    if (testSetDigest.empty()) testSetDigest = data->test.contentDigest();  // once a session: the split stays
    result.testSetDigest = testSetDigest;
    return result;
  }
  /// summary.json for `status`, written by rank 0; returns what it says.
  RunSummary writeSummary(RunStatus status, const std::string& message) {
    RunSummary summary = recorder->summarize(status, message, state);
    recorder->writeSummary(summary);
    return summary;
  }
  void resetAccumulators(std::vector<ScoreAccumulator>& list) const {
    list.assign(memberCount() + 1, ScoreAccumulator{});
  }
};

/// A new run's session (Trainer::create): validated, prepared, its replicas initialised.
std::unique_ptr<RunSession> createRunSession(ExperimentConfig config, std::string runDirectory,
                                             std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group);
/// What a saved run is opened for. Resuming takes no other settings, so what is wrong with
/// the data it recorded is said as what to put back, not as a setting to change.
enum class OpenedFor { Resuming, Evaluating };

/// A saved run's session at its latest checkpoint: to resume it (Trainer::open), or to
/// evaluate it on `evaluation`'s data or its own (RunAnalysis::open; for evaluation only,
/// reading the test split alone).
std::unique_ptr<RunSession> openRunSession(const std::string& runDirectory, const EvaluationData& evaluation,
                                           std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group,
                                           OpenedFor purpose);

}  // namespace ensemble
