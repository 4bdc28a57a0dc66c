// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/train/CudaGraphStep.h"

#include <torch/torch.h>

#include "core/common/Error.h"
#include "core/common/FieldMention.h"
#include "core/train/EpochOrder.h"

#if ENSEMBLELAB_WITH_CUDA_GRAPHS
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#endif

namespace ensemble {

#if ENSEMBLELAB_WITH_CUDA_GRAPHS
namespace {

/// Eager steps before the capture: PyTorch's own graph recipe warms up for three.
constexpr int kWarmUpSteps = 3;

/// `waiting` waits (on the GPU, not the host) for what is queued on `queued` so far. A raw
/// event: LibTorch's event class moved between namespaces across 2.x releases.
void waitFor(const c10::cuda::CUDAStream& waiting, const c10::cuda::CUDAStream& queued) {
  cudaEvent_t event = nullptr;
  C10_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  const cudaError_t recorded = cudaEventRecord(event, queued.stream());
  const cudaError_t waited = recorded == cudaSuccess ? cudaStreamWaitEvent(waiting.stream(), event, 0) : recorded;
  cudaEventDestroy(event);  // released once the wait has passed it
  C10_CUDA_CHECK(waited);
}

class CudaGraphStep final : public TrainingStep {
 public:
  CudaGraphStep(std::unique_ptr<TrainingStep> eager, const torch::Device& device, int64_t batchSize)
      : m_eager(std::move(eager)),
        m_device(device),
        m_batchSize(batchSize),
        m_stream(c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index())),
        m_positions(torch::empty({batchSize}, torch::TensorOptions().dtype(torch::kInt64).device(device))),
        m_order(EpochOrder::inBuffer(m_positions)) {}

  // The optimizers write a rate into a tensor of their own, on the caller's stream, which the
  // captured update reads (SgdMomentum::setLearningRate): the next replay, queued behind that
  // write, follows a schedule or a warmup as an eager step would.
  void setLearningRate(double learningRate) override { m_eager->setLearningRate(learningRate); }

  torch::Tensor train(const EpochOrder& order, int64_t begin) override {
    const c10::cuda::CUDAGuard onDevice(m_device.index());
    const c10::cuda::CUDAStream caller = c10::cuda::getCurrentCUDAStream(m_device.index());
    if (m_stepsSeen < kWarmUpSteps) {
      ++m_stepsSeen;
      return onOwnStream(caller, [&] { return m_eager->train(order, begin); });
    }
    m_positions.copy_(order.slice(m_device, begin, m_batchSize), /*non_blocking=*/true);
    if (!m_graph) capture(caller);
    m_graph->replay();
    return m_rows.clone();  // the next replay writes over m_rows
  }

 private:
  /// Runs `work` on the graph's stream, after what `caller` has queued, and makes `caller`
  /// wait for it.
  template <typename Work>
  torch::Tensor onOwnStream(const c10::cuda::CUDAStream& caller, Work&& work) {
    waitFor(m_stream, caller);
    torch::Tensor result;
    {
      const c10::cuda::CUDAStreamGuard onStream(m_stream);
      result = work();
    }
    waitFor(caller, m_stream);
    return result;
  }

  void capture(const c10::cuda::CUDAStream& caller) {
    // Autocast's cache of cast weights would hand the graph tensors freed at the scope's end.
    const bool autocastCache = at::autocast::is_autocast_cache_enabled();
    at::autocast::set_autocast_cache_enabled(false);
    m_graph = std::make_unique<at::cuda::CUDAGraph>();
    try {
      onOwnStream(caller, [&] {
        m_graph->capture_begin();
        m_rows = m_eager->train(m_order, 0);
        m_graph->capture_end();
        return m_rows;
      });
    } catch (...) {
      at::autocast::set_autocast_cache_enabled(autocastCache);
      m_graph.reset();
      throw;
    }
    at::autocast::set_autocast_cache_enabled(autocastCache);
  }

  std::unique_ptr<TrainingStep> m_eager;
  torch::Device m_device;
  int64_t m_batchSize;
  c10::cuda::CUDAStream m_stream;  ///< warm-up and capture (a graph is not captured on the default stream)
  torch::Tensor m_positions;       ///< the batch's positions in the training split, read by the graph
  EpochOrder m_order;              ///< the order the captured step sees: m_positions
  int m_stepsSeen = 0;
  std::unique_ptr<at::cuda::CUDAGraph> m_graph;
  torch::Tensor m_rows;  ///< the captured step's score rows, rewritten by each replay
};

}  // namespace

bool cudaGraphsBuilt() { return true; }

std::unique_ptr<TrainingStep> replayFromCudaGraph(std::unique_ptr<TrainingStep> eager, const torch::Device& device,
                                                  int64_t batchSize) {
  return std::make_unique<CudaGraphStep>(std::move(eager), device, batchSize);
}

#else

bool cudaGraphsBuilt() { return false; }

std::unique_ptr<TrainingStep> replayFromCudaGraph(std::unique_ptr<TrainingStep>, const torch::Device&, int64_t) {
  throw ConfigError(mention::field("cuda_graphs") + " on needs the CUDA build (scripts/build-cuda.sh, docs/GPU.md); "
                    "this build's LibTorch has no CUDA", "cuda_graphs");
}

#endif

}  // namespace ensemble
