// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Everything that defines a run. Validated in one place, written to every run directory
// as config.json, and read back from --config files and by `resume`. Torch-free.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "core/models/ModelRegistry.h"

namespace ensemble {

enum class TrainingMode { Single, Ensemble, DataParallel };

/// "single", "ensemble" or "data-parallel".
std::string modeName(TrainingMode mode);
/// Inverse of modeName; throws ConfigError naming the valid modes.
TrainingMode parseMode(const std::string& name);

/// How ensemble members that share one device train: one network each, side by side on
/// the CPU cores, or one network of stacked weights (core/models/StackedCnn.h; cnn only).
/// Auto (the default) is resolved when the devices are known (resolveMemberForm in
/// RunSetup.h): stacked where every member shares one GPU, separate elsewhere.
enum class MemberForm { Separate, Stacked, Auto };
/// "separate", "stacked" or "auto".
std::string memberFormName(MemberForm form);
/// Inverse of memberFormName; throws ConfigError naming the choices.
MemberForm parseMemberForm(const std::string& name);

/// Whether each training step is captured once in a CUDA graph and replayed
/// (core/train/CudaGraphStep.h). Auto (the default) is resolved when the devices are known
/// (resolveCudaGraphs in RunSetup.h): on for the cnn's stacked members or single model on one
/// GPU in one process, off elsewhere.
enum class CudaGraphs { Off, On, Auto };
/// "off", "on" or "auto".
std::string cudaGraphsName(CudaGraphs graphs);
/// Inverse of cudaGraphsName; also takes a switch's words (true, false, yes, no, 1, 0), which
/// is what config.json held before auto. Throws ConfigError naming the choices.
CudaGraphs parseCudaGraphs(const std::string& name);

/// How the learning rate moves over a run (core/config/LearningRateSchedule.h): constant;
/// cosine, from lr at the first step down towards 0 at the last (PyTorch's CosineAnnealingLR
/// stepped once a training step, with T_max the run's steps and eta_min 0); or step, lr
/// divided by 10 at half and at three quarters of the run (MultiStepLR, gamma 0.1: the ResNet
/// recipe of He et al. 2016).
enum class LrSchedule { Constant, Cosine, Step };
/// "constant", "cosine" or "step".
std::string lrScheduleName(LrSchedule schedule);
/// Inverse of lrScheduleName; throws ConfigError naming the choices.
LrSchedule parseLrSchedule(const std::string& name);
std::vector<std::string> lrScheduleNames();

/// The arithmetic of a run: core/train/Precision.h says what each does.
enum class Precision { Fp32, Tf32, Bf16 };
/// "fp32", "tf32" or "bf16".
std::string precisionName(Precision precision);
/// Inverse of precisionName; throws ConfigError naming the choices.
Precision parsePrecision(const std::string& name);
/// Every name of each, in the order they are offered.
std::vector<std::string> modeNames();
std::vector<std::string> memberFormNames();
std::vector<std::string> precisionNames();
std::vector<std::string> cudaGraphsNames();

/// eval_batch_size auto, as ExperimentConfig holds it, and what it becomes: small batches
/// evaluate faster on the CPU, where they stay in cache (measured 1.9x for the CNN ensemble at
/// 256 against 1000, with less memory: docs/BENCHMARKS.md); a GPU wants fewer, larger launches
/// (the GPU peers evaluate 1000 images a call).
constexpr int64_t kAutoEvalBatchSize = 0;
constexpr int64_t kCpuEvalBatchSize = 256;
constexpr int64_t kGpuEvalBatchSize = 1000;
/// The evaluation batch of a run whose eval_batch_size is `setting`: itself, or for auto
/// kGpuEvalBatchSize where every device is a GPU and kCpuEvalBatchSize elsewhere.
int64_t evalBatchSizeFor(int64_t setting, bool everyDeviceIsGpu);

struct ExperimentConfig {
  std::string dataset = "fashion-mnist";  ///< "fashion-mnist", "synthetic" or a folder
  ModelKind model = ModelKind::Cnn;
  TrainingMode mode = TrainingMode::Ensemble;
  /// Device spec (see DeviceSpec.h). Empty means the mode's default: one device for
  /// single, four CPU replicas (or every GPU) for ensemble, two (or every GPU) for
  /// data-parallel.
  std::string devices;
  double learningRate = 0.1;
  double momentum = 0.9;
  /// L2 weight decay, torch.optim.SGD's weight_decay: each step adds weightDecay * weight to
  /// the gradient before momentum. 0 = none (the references' recipe).
  double weightDecay = 0.0;
  LrSchedule lrSchedule = LrSchedule::Constant;
  /// Linear warmup: the first lrWarmupSteps steps rise to learningRate (step k of them at
  /// learningRate * k / lrWarmupSteps), then lrSchedule runs over the steps left. 0 = none.
  int64_t lrWarmupSteps = 0;
  int64_t batchSize = 128;
  int64_t epochs = 10;
  std::uint64_t seed = 0;
  int64_t trainLimit = 0;       ///< use only the first N training samples; 0 = all
  int64_t testLimit = 0;        ///< use only the first N test samples; 0 = all
  int64_t checkpointEvery = 0;  ///< also checkpoint every N steps; 0 = at epoch ends only
  int64_t logEvery = 10;        ///< write a metrics row every N steps
  /// Also evaluate on the test split every N steps (rows in metrics.csv at that step, curves
  /// between epochs); 0 = at epoch ends only. Costs an evaluation each time.
  int64_t evalEvery = 0;
  /// Images per evaluation batch, or kAutoEvalBatchSize (the default): RunSession resolves
  /// it for the run's devices (evalBatchSizeFor), and config.json records the number used.
  int64_t evalBatchSize = kAutoEvalBatchSize;
  /// Refuse to start a run whose measured host-memory need exceeds this many MiB; 0 = no
  /// budget. Checked for the replicas on the CPU.
  int64_t memoryBudgetMb = 0;
  /// Auto: stacked for the members of one GPU (launch-bound as separate networks, issue 29),
  /// separate on the CPU (stacked measured slower there). config.json records the form
  /// the run trained in.
  MemberForm memberForm = MemberForm::Auto;
  Precision precision = Precision::Fp32;
  /// Deterministic kernels on GPUs (core/train/Determinism.h): the same seed gives the same
  /// numbers and a resumed run the uninterrupted one, byte for byte. The CPU is
  /// deterministic either way.
  bool deterministic = true;
  /// Capture each training step once in a CUDA graph and replay it (core/train/CudaGraphStep.h):
  /// one launch a step instead of hundreds, the same numbers byte for byte. Members (or the
  /// single model) on one GPU, in one process. Auto: on where a GPU run has shown it equal to
  /// the eager step (docs/GPU.md, gpu-check 2j-2m). config.json records what the run used.
  CudaGraphs cudaGraphs = CudaGraphs::Auto;
  /// Start from weights PyTorch saved (torch.save(model.state_dict(), F)) instead of the
  /// seeded initialisation: one file for every model, or one per model, comma-separated.
  /// Read once, when the run starts; a resumed run continues from its checkpoint.
  std::string initFrom;
  /// Where > 0, every convolution and dense weight (each parameter of two or more dimensions)
  /// is drawn from N(0, initStd²) after the model's own initialisation, from the member's
  /// seed: d2l.ai's init_weights (0.01). Biases and BatchNorm keep theirs. 0 = LibTorch's
  /// initialisation alone (PyTorch's). Cannot go with initFrom, which replaces every weight.
  double initStd = 0.0;

  /// The files of initFrom, in order (none when it is empty).
  std::vector<std::string> initFromFiles() const;
  /// initFrom with each of its paths made absolute, as config.json and sweep.json record it:
  /// a run or a sweep resumed from another working directory finds the same files.
  std::string absoluteInitFrom() const;

  /// Throws ConfigError naming the first invalid field, its value and the valid range.
  /// Checks that need the data (batch size vs. training set) happen when training starts.
  void validate() const;

  /// The device spec to use: `devices`, or the mode's default for `cudaCount` GPUs.
  std::string effectiveDevices(int cudaCount) const;

  nlohmann::json toJson() const;
  /// Reads a config; absent keys keep their defaults. Throws ConfigError naming `origin`
  /// and the key for unknown keys or values of the wrong type.
  static ExperimentConfig fromJson(const nlohmann::json& json, const std::string& origin);
  /// Reads a JSON file (validate() comes after any overrides). Throws ConfigError on a
  /// missing or malformed file.
  static ExperimentConfig fromFile(const std::string& path);
  /// Overlays the keys present in `json` onto this config.
  void merge(const nlohmann::json& json, const std::string& origin);
};

}  // namespace ensemble
