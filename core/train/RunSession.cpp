// SPDX-License-Identifier: GPL-3.0-or-later
// Preparing a run's session: a new run (checked, data loaded, replicas built and seeded)
// or a saved one at its latest checkpoint.
#include "core/train/RunSession.h"

#include <limits>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/config/RunMode.h"
#include "core/data/ClassCoverage.h"
#include "core/data/DatasetSource.h"
#include "core/io/Checkpoint.h"
#include "core/train/CudaGraphStep.h"
#include "core/train/RunSetup.h"
#include "core/train/SavedClasses.h"

namespace ensemble {

void RunSession::prepare() {
  devices = resolveRunDevices(config, group);
  if (created) checkNewEnsembleHasMembers(config.mode, group.worldSize, int64_t(devices.size()), formatDevices(devices));
  config.memberForm = resolveMemberForm(config, devices);  // what config.json and the step see
  config.cudaGraphs = resolveCudaGraphs(config, devices, group.distributed(), cudaGraphsBuilt());
  config.evalBatchSize = evalBatchSizeFor(config.evalBatchSize, everyDeviceIsGpu(devices));
  if (evaluationOnly && !data) {
    // A dataset to score the run on: its test split alone (a folder of one's own images needs
    // no training files, and placeholder labels need not make a training set).
    auto test = std::make_shared<DatasetPair>();
    test->test = loadTestSplit(config.dataset, config.testLimit);
    test->train = test->test;
    test->train.images = test->test.images.narrow(0, 0, 0);
    test->train.labels = test->test.labels.narrow(0, 0, 0);
    data = std::move(test);
  }
  // A changed dataset is said as such before its size meets the batch size or the
  // checkpoint's position (each would blame the settings or the checkpoint).
  data = loadRunData(config, std::move(data), !evaluationOnly && !recordedTrainSamples);
  if (recordedTrainSamples) checkSameTrainingSet(*recordedTrainSamples, data->train.size(), config.dataset);
  if (!evaluationOnly) sampler = std::make_unique<EpochSampler>(config.seed, data->train.size(), config.batchSize);
  // The run's steps are counted in 64 bits: more would wrap (an ETA of 0 s had been shown).
  if (sampler && config.epochs > std::numeric_limits<int64_t>::max() / sampler->stepsPerEpoch()) {
    throw ConfigError(mention::field("epochs") + " " + std::to_string(config.epochs) + " of " +
                          std::to_string(sampler->stepsPerEpoch()) + " steps each are more steps than a run counts; give at most " +
                          std::to_string(std::numeric_limits<int64_t>::max() / sampler->stepsPerEpoch()),
                      "epochs");
  }
  modelInput = modelInputOf(evaluationOnly ? data->test : data->train);
  if (savedClasses) modelInput.classes = classesForOpenedRun(*data, *savedClasses, evaluationOnly, config.dataset);
  // The budget is the training's (its steps, its replicas' optimizer state): an evaluation
  // needs less, and it was refused naming flags eval does not take.
  if (!evaluationOnly) checkMemoryBudget(config, devices, group.worldSize, *data, modelInput);
  if (!evaluationOnly) dataNotices = classCoverageNotices(*data, modelInput.classes, config.trainLimit);
  if (!evaluationOnly) checkDeterministicKernels(config, modelInput, devices);
  communicator = connectReplicas(config, devices, group, runPath);
  replicas = buildReplicas(config, modelInput, devices, communicator->firstReplica());
  workers = std::make_unique<ReplicaWorkers>(replicaThreadCount(devices, stacked()));
  trainSplit = std::make_unique<SplitOnDevices>(data->train);
  testSplit = std::make_unique<SplitOnDevices>(data->test);
  step = makeTrainingStep({config, replicas, *communicator, *workers, *trainSplit});
  ledger = std::make_unique<ScoreLedger>(
      *communicator, ScoreLedger::Setup{int(replicas.size()), config.mode, config.batchSize, config.learningRate,
                                        config.weightDecay, runPath});
  recorder = std::make_unique<RunRecorder>(config, RunDirectory(runPath), *communicator, replicas,
                                           formatDevices(devices), sampler ? sampler->stepsPerEpoch() : 0,
                                           modelInput.classes);
  useCallerThreadForBlas();
  resetAccumulators(state.window);
  resetAccumulators(state.epochTotals);
}

std::unique_ptr<RunSession> createRunSession(ExperimentConfig config, std::string runDirectory,
                                             std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group) {
  auto session = std::make_unique<RunSession>();
  session->config = std::move(config);
  session->group = group;
  session->runPath = std::move(runDirectory);
  session->data = std::move(data);
  session->created = true;
  session->prepare();
  initialiseReplicasFrom(session->replicas, session->config, session->communicator->firstReplica(), session->memberCount());
  // Record the devices actually used, so config.json replays the same run, and a dataset
  // folder and init_from's files as absolute paths, so it resumes from any working directory.
  session->config.devices = formatDevices(session->devices);
  session->config.dataset = recordedDatasetSpec(session->config.dataset);
  session->config.initFrom = session->config.absoluteInitFrom();
  session->state.trainSamples = session->data->train.size();
  session->state.trainSetDigest = session->data->train.contentDigest();
  session->state.testSetDigest = session->testSetDigest = session->data->test.contentDigest();
  return session;
}

std::unique_ptr<RunSession> openRunSession(const std::string& runDirectory, const EvaluationData& evaluation,
                                           std::shared_ptr<const DatasetPair> data, const ProcessGroupOptions& group,
                                           OpenedFor purpose) {
  const RunDirectory directory(runDirectory);
  const std::string checkpointDir = latestCheckpoint(directory.checkpointsPath());
  CheckpointData saved = readCheckpoint(checkpointDir);
  ExperimentConfig config = ExperimentConfig::fromJson(saved.config, checkpointDir + "/manifest.json");
  if (purpose == OpenedFor::Resuming) {
    checkResumedByItsProcesses(directory.path(), group.worldSize);
    if (!data) checkResumedRunsDatasetIsThere(config.dataset);
  }
  if (!evaluation.dataset.empty()) {
    checkSameImageSize(config.dataset, evaluation.dataset);
    config.dataset = evaluation.dataset;
  }
  if (evaluation.testLimit) config.testLimit = *evaluation.testLimit;
  auto session = std::make_unique<RunSession>();
  session->config = config;
  session->runPath = directory.path();
  session->data = std::move(data);
  session->group = group;
  // Scoring needs the test split alone: a run whose training files were removed (or moved
  // on) since scores as it did, and reading 60,000 training images for it was wasted.
  session->evaluationOnly = purpose == OpenedFor::Evaluating;
  session->savedClasses = savedClassCount(saved, config.model);
  RunState savedState = RunState::fromJson(saved.state, checkpointDir);
  if (!session->evaluationOnly && savedState.trainSamples > 0) session->recordedTrainSamples = savedState.trainSamples;
  try {
    session->prepare();
  } catch (const DatasetError& error) {
    // Scored on its own data, which moved or lost files since: the message had offered
    // --dataset as for a new run, without saying whose folder it was or that a test split will do.
    if (purpose != OpenedFor::Evaluating || !evaluation.dataset.empty() || config.dataset == "synthetic") throw;
    throw DatasetError(std::string(error.what()) + ". That is the dataset this run trained on (" + config.dataset +
                           "): put it back as it was (its two test files will do), or score the run on a folder of the same images with " +
                           mention::field("dataset") + ", of which only the test split is read",
                       "dataset");
  }
  if (!session->evaluationOnly) {
    // As many images, other ones: said before the run goes on, on data it did not train on.
    const std::string train = session->data->train.contentDigest(), test = session->data->test.contentDigest();
    checkSameDataContent(savedState.trainSetDigest, train, "training", config.dataset);
    checkSameDataContent(savedState.testSetDigest, test, "test", config.dataset);
    savedState.trainSetDigest = train;  // older checkpoints: from now
    savedState.testSetDigest = session->testSetDigest = test;
  }
  session->state = std::move(savedState);
  checkResumable(session->state, config, session->evaluationOnly ? 0 : session->sampler->stepsPerEpoch(), session->memberCount(),
                 saved.weights.size(), session->evaluationOnly, checkpointDir);
  if (!session->evaluationOnly) session->state.trainSamples = session->data->train.size();  // older checkpoints: from now
  restoreReplicas(session->replicas, saved, config.mode, session->communicator->firstReplica(), checkpointDir);
  session->resumed = true;
  session->recorder->resumedFrom(session->state.globalStep, std::move(saved.metricsCsv));
  return session;
}

}  // namespace ensemble
