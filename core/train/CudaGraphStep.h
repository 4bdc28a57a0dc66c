// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A training step replayed from a CUDA graph (setting cuda_graphs; CUDA builds only).
//
// On an H100 the ensemble's step was bound by the host: about 790 kernel launches a step for
// separate members, 190 for stacked ones (issue 29's profile), each costing the CPU more than
// the GPU spends on it. Captured once, the whole step (the batch gathered from the device's
// copy of the training split, forward, loss, backward, the SGD update, the members' average
// and the score rows) is one launch.
//
// How: the first kWarmUpSteps steps run eagerly, on the stream the graph is later captured
// on (cuBLAS and cuDNN set themselves up there). The next step is captured, with the eager
// step reading its batch positions from one buffer on the GPU (EpochOrder::inBuffer), and
// replayed; from then on each step copies its positions into that buffer (device to device,
// no host wait) and replays the graph. Tensors the step allocates live in the graph's own
// memory pool, at fixed addresses: the parameters and momentum buffers are updated in place,
// so checkpoints, evaluation and resume see them as in an eager run. The kernels are the
// eager step's own, in the same order: with deterministic kernels a graph run gives the
// eager run's numbers exactly (scripts/gpu-check.sh compares them).
//
// Only a step on one GPU in one process is captured: an NCCL collective across GPUs or
// processes is not (RunSetup refuses cuda_graphs there, before anything is written).
#include <torch/types.h>

#include <memory>

#include "core/train/CudaGraphsBuilt.h"
#include "core/train/TrainingStep.h"

namespace ensemble {

/// `eager` replayed from a CUDA graph on `device`, every batch `batchSize` positions long.
/// Throws ConfigError in a build without CUDA.
std::unique_ptr<TrainingStep> replayFromCudaGraph(std::unique_ptr<TrainingStep> eager, const torch::Device& device,
                                                  int64_t batchSize);

}  // namespace ensemble
