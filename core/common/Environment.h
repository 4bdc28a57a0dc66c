// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every environment variable the engine reads, by name, and the one function that reads
// them: `grep environment::k` lists what a user (or torchrun) can set. Torch-free.
#include <initializer_list>
#include <string>

namespace ensemble::environment {

// EnsembleLab's own.
/// Threads that run a step's CPU replicas side by side (default: one per core).
inline constexpr char kReplicaThreads[] = "ENSEMBLELAB_REPLICA_THREADS";
/// Test seam: "<path part>:<n>:<ENOSPC|EACCES|EIO>" fails the nth write to a matching file.
inline constexpr char kWriteFault[] = "ENSEMBLELAB_WRITE_FAULT";
/// The run token of a multi-process run (core/comm/RunToken.h), or a file holding it.
inline constexpr char kRunToken[] = "ENSEMBLELAB_RUN_TOKEN";
inline constexpr char kRunTokenFile[] = "ENSEMBLELAB_RUN_TOKEN_FILE";
/// Test seam: "<point>:<n>" SIGKILLs the process the nth time it reaches a crash point.
inline constexpr char kCrashAt[] = "ENSEMBLELAB_CRASH_AT";
/// "unfused": on a GPU, the CNN's first layer runs LibTorch's conv2d, ReLU and avg_pool2d
/// instead of our fused kernels (core/models/ConvReluPool.h): to measure what they gain
/// (bench/gpu_layers_ab.sh), or to get round a kernel fault on a GPU we have not tested.
inline constexpr char kGpuFirstLayer[] = "ENSEMBLELAB_GPU_FIRST_LAYER";
/// Whose kernels run the stacked CNN's second convolution on a GPU (core/models/GroupedConv.h):
/// unset, ours on the mma.sync kernels in fp32 and cuDNN's in TF32 and bf16, as an H200
/// measured them (docs/BENCHMARKS.md, the fifth H200 session); "ours" (fp32 on the CUDA cores,
/// TF32 and bf16 on wmma) or "cudnn" for every precision; "ours-mma-sync" ours, with fp32 and
/// TF32 on the mma.sync kernels (bf16 on wmma).
inline constexpr char kStackedConv[] = "ENSEMBLELAB_STACKED_CONV";
/// "staged": the mma.sync convolution's forward (fp32's default on a GPU) first lays its filters
/// out so that each stage's are copied 16 bytes at a time; unset or "gathered" (the default, as
/// measured on an H200 on 2026-12-04) copies them 4 bytes at a time from LibTorch's layout. The
/// same bits either way; an A/B for the next GPU session (docs/GPU.md), then one form stays.
inline constexpr char kMmaSyncWeights[] = "ENSEMBLELAB_MMA_SYNC_WEIGHTS";
/// "channels-last": the stacked CNN's activations and filters are channels-last on a GPU
/// (default NCHW); an experiment measured by bench/gpu_layers_ab.sh.
inline constexpr char kStackedLayout[] = "ENSEMBLELAB_STACKED_LAYOUT";
/// "8": the CPU loops' matrix products hold 8 floats a register even where the CPU has
/// AVX-512's 16 (core/models/PanelProduct.h): to measure what the wide ones gain, or to test
/// the 8-float panels on such a machine.
inline constexpr char kCpuVectorFloats[] = "ENSEMBLELAB_CPU_VECTOR_FLOATS";

// torchrun's (torch.distributed.run), read when the CLI's group flags are absent.
inline constexpr char kWorldSize[] = "WORLD_SIZE";
inline constexpr char kRank[] = "RANK";
inline constexpr char kLocalRank[] = "LOCAL_RANK";
inline constexpr char kMasterAddr[] = "MASTER_ADDR";
inline constexpr char kMasterPort[] = "MASTER_PORT";
inline constexpr char kUseAgentStore[] = "TORCHELASTIC_USE_AGENT_STORE";
inline constexpr char kRestartCount[] = "TORCHELASTIC_RESTART_COUNT";

// torch's and the desktop's.
/// cuBLAS's workspace: a fixed one (":4096:8") makes its matrix products deterministic;
/// set by a deterministic run (core/train/Determinism.h) unless the user set it.
inline constexpr char kCublasWorkspaceConfig[] = "CUBLAS_WORKSPACE_CONFIG";
/// c10d's NCCL group: a failed collective throws from wait() instead of aborting the
/// process from NCCL's watchdog (the old name and the new).
inline constexpr char kNcclBlockingWait[] = "NCCL_BLOCKING_WAIT";
inline constexpr char kTorchNcclBlockingWait[] = "TORCH_NCCL_BLOCKING_WAIT";
/// LibTorch's own log lines (glog's in Debian's LibTorch, c10's in the wheel's): the CLI
/// keeps them to fatal ones unless one of these is set (core/common/TorchLogging.h).
inline constexpr char kTorchCppLogLevel[] = "TORCH_CPP_LOG_LEVEL";
inline constexpr char kGlogMinLogLevel[] = "GLOG_minloglevel";
/// Gloo's network interface, as in PyTorch.
inline constexpr char kGlooSocketInterface[] = "GLOO_SOCKET_IFNAME";
/// Where the default runs folder lives (XDG base directories).
inline constexpr char kXdgDataHome[] = "XDG_DATA_HOME";
inline constexpr char kHome[] = "HOME";
/// The user's private runtime folder, where rank 0 keeps a run token it made.
inline constexpr char kXdgRuntimeDir[] = "XDG_RUNTIME_DIR";

/// The value of `name`, or nullptr when it is unset or empty (an empty variable means unset).
const char* read(const char* name);

/// The value of `name` where it is one of `values`, "" when it is unset; any other value is a
/// ConfigError that names the variable and the values it takes (`meaning` says what they do).
std::string oneOf(const char* name, std::initializer_list<const char*> values, const char* meaning);

/// Whether variable `name` is set to `value` (false when unset); any other value is a
/// ConfigError that names the variable and what it takes: `meaning` says what `value` does.
bool isSetTo(const char* name, const char* value, const char* meaning);

/// Sets `name` to `value` unless the user has set it: the engine's defaults for torch's
/// and CUDA's variables, which those libraries read themselves.
void setDefault(const char* name, const char* value);

/// This machine's name (gethostname), "localhost" where it has none: for TensorBoard's
/// file names and for naming a rank's host in messages.
std::string hostName();

}  // namespace ensemble::environment
