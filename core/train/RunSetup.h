// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything a run checks and builds before it trains, so that bad input is refused
// before anything is written: the settings against the devices and the process group, the
// dataset, the memory budget, the communicator, and (on resume) the checkpoint against the
// run it is meant to continue.
#include <memory>
#include <string>
#include <vector>

#include "core/devices/DeviceSpec.h"
#include "core/config/ExperimentConfig.h"

namespace ensemble {

// Declarations only: what settings resolve to is asked without LibTorch's headers (the
// datasets and models bring them).
class Communicator;
struct CheckpointData;
struct Dataset;
struct DatasetPair;
struct ModelInput;
struct ProcessGroupOptions;
struct Replica;
struct RunState;

/// Validates `config` and `group`, gives a rank of a group without --devices its default
/// device (this host's GPU for its local rank, or the CPU), and returns the replicas'
/// devices. Throws ConfigError (a setting that contradicts the devices or the group) or
/// DeviceError (a device that is not there, with the reason).
std::vector<DeviceRef> resolveRunDevices(ExperimentConfig& config, const ProcessGroupOptions& group);

/// The member form a run trains in on `devices` (this process's): "auto" is stacked where
/// an ensemble of the cnn has two members or more, all on one GPU (separate networks there
/// are bound by kernel launches, issue 29's profile), and separate elsewhere (on the CPU
/// separate members run side by side on the cores: measured faster). An explicit form is
/// kept.
MemberForm resolveMemberForm(const ExperimentConfig& config, const std::vector<DeviceRef>& devices);

/// Refuses to evaluate a run trained on `trainedOn` on `dataset` when their images differ in
/// size (the models' layers would not fit), saying both sizes; from the IDX headers alone, before
/// anything is loaded or built. Nothing is checked when `trainedOn` can no longer be read.
void checkSameImageSize(const std::string& trainedOn, const std::string& dataset);

/// Whether every one of `devices` is a GPU (what eval_batch_size auto asks: evalBatchSizeFor).
bool everyDeviceIsGpu(const std::vector<DeviceRef>& devices);

/// Whether a run captures its steps in CUDA graphs, for `config` with its member form resolved:
/// "auto" is on in a CUDA build (`cudaBuild`) for the cnn's stacked members or its single
/// model, on one GPU, in one process (not `distributed`): the cases a GPU run has shown to
/// give the eager step's numbers byte for byte (scripts/gpu-check.sh 2j-2m), at 1.3x (fp32)
/// to 2.3x (bf16) its speed for 8 stacked members (docs/GPU.md), with a constant or a varying
/// learning rate (a warmup or a schedule: gpu-check.sh 2o). Off elsewhere. An explicit on or
/// off is kept (on is checked by resolveRunDevices).
CudaGraphs resolveCudaGraphs(const ExperimentConfig& config, const std::vector<DeviceRef>& devices, bool distributed,
                             bool cudaBuild);

/// Throws ConfigError for a batch larger than `trainSamples`, the training samples the run
/// has (the dataset's, cut by train_limit): an epoch would have no step. Says which to change.
void refuseBatchLargerThanTrainingSet(const ExperimentConfig& config, int64_t trainSamples);

/// The run's dataset: `given` cut to the config's sample limits, or loaded from
/// config.dataset. Throws DatasetError, or (`forTraining`) ConfigError for a batch larger
/// than the training split.
std::shared_ptr<const DatasetPair> loadRunData(const ExperimentConfig& config,
                                               std::shared_ptr<const DatasetPair> given, bool forTraining);

/// The test split of `dataset` (a name or folder), to score as out-of-distribution against
/// a run whose test split is `runTest`; any number of images. A built-in set's name
/// (core/data/OutOfDistributionSets.h) makes that set from `runTest`, its noise drawn with
/// `seed`. Throws DatasetError for a split without images, or images of another size than
/// the models take.
Dataset loadOutOfDistribution(const std::string& dataset, const Dataset& runTest, std::uint64_t seed);

/// The input shape and classes of `train`, which the models are built for.
ModelInput modelInputOf(const Dataset& train);

/// Throws ConfigError when the run's measured host-memory need (dataset, the CPU
/// replicas, a step, evaluation) exceeds config.memoryBudgetMb; nothing without a budget.
void checkMemoryBudget(const ExperimentConfig& config, const std::vector<DeviceRef>& devices, int worldSize,
                       const DatasetPair& data, const ModelInput& input);

/// How the replicas agree: a c10d process group across processes (after the rendezvous,
/// which checks that every rank trains the same experiment), NCCL between several GPUs of
/// this process, otherwise averages in memory. `runFolder`: where this process would write
/// the run (rank 0's is the one written; the others are told it).
std::unique_ptr<Communicator> connectReplicas(const ExperimentConfig& config, const std::vector<DeviceRef>& devices,
                                              const ProcessGroupOptions& group, const std::string& runFolder);

/// The replicas this process trains, one per device, freshly initialised. Ensemble
/// members get their own seeds, by their index in the whole group (`firstReplica` + r);
/// data-parallel replicas share member 0's so they start identical (and a single model
/// starts like member 0 of an ensemble).
std::vector<Replica> buildReplicas(const ExperimentConfig& config, const ModelInput& input,
                                   const std::vector<DeviceRef>& devices, int firstReplica);

/// Throws ConfigError for an init_from file that is a checkpoint's optimizer state, naming
/// the weights file beside it: its momentum buffers have the weights' names and shapes, so
/// loaded as weights they would start the run from near-zero noise without a word.
void refuseOptimizerStateAsWeights(const std::string& file);

/// Reads init_from's `file` as a run would start from it: throws ConfigError naming the
/// setting for a file that cannot be read, is a checkpoint's optimizer state, or holds a NaN
/// or an infinity.
void checkInitialWeightsFile(const std::string& file);

/// The weights files config.initFrom names for a run of `models` models, each folder in it
/// taken as its checkpoint's files (core/io/Checkpoint.h weightFilesAt): one file for every
/// model, or one per model. Throws ConfigError for a number that fits neither (naming what
/// a folder held), CheckpointError for a folder without a checkpoint.
std::vector<std::string> initialWeightFiles(const ExperimentConfig& config, std::size_t models);

/// Gives freshly built `replicas` the weights of config.initFrom's state_dicts
/// (initialWeightFiles): one file for every model, or file i for model i of the whole group
/// (`firstReplica` + r; `models` in all). Throws ConfigError for a number of files that fits neither, CheckpointError
/// naming the file and what does not fit the model.
void initialiseReplicasFrom(std::vector<Replica>& replicas, const ExperimentConfig& config, int firstReplica,
                            std::size_t models);

/// Loads the saved weights and momentum into `replicas`: data-parallel saves one model,
/// ensemble members sit at their index in the group. Throws CheckpointError naming the
/// file of a model that does not fit.
void restoreReplicas(std::vector<Replica>& replicas, const CheckpointData& saved, TrainingMode mode, int firstReplica,
                     const std::string& checkpointDir);

/// Throws DatasetError when the dataset a resumed run recorded (`spec`) is not where it was:
/// resume takes no other, so the message says to put it back (loading it would say to pass
/// another, which only train, eval and predict take).
void checkResumedRunsDatasetIsThere(const std::string& spec);

/// Throws ConfigError when the run in `runDirectory` was trained by another number of
/// processes (summary.json's "processes") than `worldSize`, the resuming group's: its
/// checkpoint holds every process's members, so it fits only the same group, and the
/// message gives the command for each rank.
void checkResumedByItsProcesses(const std::string& runDirectory, int worldSize);

/// Throws DatasetError when an opened run's training split (`now` images of the dataset
/// `spec`) is not the size its checkpoint recorded (`recorded`): the dataset changed since
/// the run trained, which is what to put right, not the checkpoint.
void checkSameTrainingSet(int64_t recorded, int64_t now, const std::string& spec);

/// Throws DatasetError when a split's content (Dataset::contentDigest, `now`) is not what the
/// checkpoint recorded (`recorded`; empty in older checkpoints: nothing to compare): images or
/// labels changed though their count did not, and the run would go on, on other data, as if
/// it had not. `split`: "training" or "test".
void checkSameDataContent(const std::string& recorded, const std::string& now, const std::string& split,
                          const std::string& spec);

/// Throws CheckpointError when the checkpoint at `checkpointDir` cannot continue this run:
/// its position outside the run's epochs and steps (unless it is only evaluated on another
/// dataset), running means or saved models for another number of models.
void checkResumable(const RunState& state, const ExperimentConfig& config, int64_t stepsPerEpoch,
                    std::size_t models, std::size_t savedModels, bool otherDataset, const std::string& checkpointDir);

}  // namespace ensemble
